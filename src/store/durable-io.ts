// Durable file operations over a FileSystem (the real one unless a test injects faults).
import { dirname } from 'node:path'
import { nodeFileSystem, writeAll, type FileSystem } from './file-system.js'
import { appendLogOf } from './files.js'
import type { TempFiles } from './temp-files.js'

/**
 * Replaces `file` atomically and durably: the data goes to `tempFile` (one buffer, or chunks made
 * as they are written, so that a file of any size is never one buffer), which is fsynced and
 * renamed over `file`, and the directory is fsynced. A crash leaves the old file or the new one; a
 * failure removes the temporary file, which would hold disk space the next write needs (if even
 * that fails, the caller must try again later). `renamed` is called once the rename has succeeded:
 * from there on, which file a crash leaves is in doubt until the directory fsync succeeds. (A
 * failed rename changed nothing: POSIX.) `temps`, when given, is told how it went (a temporary
 * file a failure left is swept by the next write that succeeds).
 */
export function replaceFileDurably(
  file: string,
  tempFile: string,
  data: Uint8Array | Iterable<Uint8Array>,
  options: { fs?: FileSystem; renamed?: () => void; temps?: TempFiles | undefined } = {},
): Promise<void> {
  const replace = () => replaceOnce(file, tempFile, data, options)
  return options.temps === undefined ? replace() : options.temps.writing(tempFile, replace)
}

async function replaceOnce(
  file: string,
  tempFile: string,
  data: Uint8Array | Iterable<Uint8Array>,
  { fs = nodeFileSystem, renamed = () => undefined }: { fs?: FileSystem; renamed?: () => void },
): Promise<void> {
  await fs.makeDirectory(dirname(file))
  try {
    const handle = await fs.open(tempFile, 'w')
    try {
      let position = 0
      for (const chunk of data instanceof Uint8Array ? [data] : data) {
        await writeAll(handle, chunk, position)
        position += chunk.length
      }
      await handle.sync()
    } catch (error) {
      await handle.close().catch(() => undefined)
      throw error
    }
    await handle.close()
    await fs.rename(tempFile, file)
  } catch (error) {
    await fs.remove(tempFile).catch(() => undefined)
    throw error
  }
  renamed()
  await fs.syncDirectory(dirname(file))
}

/** Which of a data file's files may be on disk: 'none' only for one known absent that wrote nothing since. */
export type FilesOnDisk = 'none' | 'append log' | 'image'

/**
 * Removes a data file's image, then its append log, each durably before the next: an append log left
 * alone names an image that is gone, and a start ignores it; an image left alone would lack the
 * append log's records. With no image on disk (`mayHave`), the append log alone: one directory fsync.
 */
export async function removeDataFile(
  file: string,
  fs: FileSystem = nodeFileSystem,
  mayHave: FilesOnDisk = 'image',
): Promise<void> {
  if (mayHave === 'image') {
    await fs.remove(file)
    await fs.syncDirectory(dirname(file))
  }
  await fs.remove(appendLogOf(file))
  await fs.syncDirectory(dirname(file))
}
