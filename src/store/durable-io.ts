// Durable file operations over a FileSystem (the real one unless a test injects faults).
import { dirname } from 'node:path'
import { nodeFileSystem, writeAll, type FileSystem } from './file-system.js'
import { appendLogOf } from './files.js'

/**
 * Creates (or empties) `path` and writes `data` to it, fsynced: one buffer, or chunks made as they
 * are written (so that a file of any size is never one buffer). On failure the file is closed and
 * removed: a half-written temporary file would hold disk space that the next write needs.
 */
export async function writeFileSynced(
  fs: FileSystem,
  path: string,
  data: Uint8Array | Iterable<Uint8Array>,
): Promise<void> {
  try {
    const file = await fs.open(path, 'w')
    try {
      let position = 0
      for (const chunk of data instanceof Uint8Array ? [data] : data) {
        await writeAll(file, chunk, position)
        position += chunk.length
      }
      await file.sync()
    } catch (error) {
      await file.close().catch(() => undefined)
      throw error
    }
    await file.close()
  } catch (error) {
    await fs.remove(path).catch(() => undefined)
    throw error
  }
}

/**
 * Replaces `file` atomically and durably: the data goes to `tempFile`, which is fsynced and
 * renamed over `file`, and the directory is fsynced. A crash leaves the old file or the new one;
 * a failure removes the temporary file (if even that fails, the caller must try again later).
 * `renamed` is called once the rename has succeeded: from there on, which file a crash leaves is
 * in doubt until the directory fsync succeeds. (A failed rename changed nothing: POSIX.)
 */
export async function replaceFileDurably(
  file: string,
  tempFile: string,
  data: Uint8Array | Iterable<Uint8Array>,
  { fs = nodeFileSystem, renamed = () => undefined }: { fs?: FileSystem; renamed?: () => void } = {},
): Promise<void> {
  await fs.makeDirectory(dirname(file))
  await writeFileSynced(fs, tempFile, data)
  try {
    await fs.rename(tempFile, file)
  } catch (error) {
    await fs.remove(tempFile).catch(() => undefined)
    throw error
  }
  renamed()
  await fs.syncDirectory(dirname(file))
}

/**
 * Removes a data file's image, then its append log, each durably before the next: an append log left
 * alone names an image that is gone, and a start ignores it; an image left alone would lack the
 * append log's records.
 */
export async function removeDataFile(file: string, fs: FileSystem = nodeFileSystem): Promise<void> {
  await fs.remove(file)
  await fs.syncDirectory(dirname(file))
  await fs.remove(appendLogOf(file))
  await fs.syncDirectory(dirname(file))
}
