// The data file's durable file operations, over a FileSystem (the real one by default): a file
// written and fsynced, an atomic and durable replace of a whole file, and the one error type the
// store reports file problems with.
import { readdir } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { nodeFileSystem, writeAll, type FileSystem } from './file-system.js'

export interface Batch {
  readonly promise: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

export class DataFileError extends Error {
  readonly file: string
  constructor(file: string, problem: string) {
    super(`Data file ${file} ${problem}`)
    this.name = 'DataFileError'
    this.file = file
  }
}

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

/** A promise with its resolve and reject: the callers that one write acknowledges together. */
export function batch(): Batch {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/**
 * Removes a data file and its journal, durably, each removal made durable before the next. The
 * snapshot goes first: the journal left alone then names a snapshot that is gone, and a start
 * ignores it (a journal that names the initial data holds the whole store, its last reset
 * included). A snapshot left alone would hold the store as it was before its journal.
 */
export async function removeDataFile(file: string, fs: FileSystem = nodeFileSystem): Promise<void> {
  await fs.remove(file)
  await fs.syncDirectory(dirname(file))
  await fs.remove(`${file}.journal`)
  await fs.syncDirectory(dirname(file))
}

/** Where `file` is written before its rename into place: a hidden name beside it. */
export function tempFileOf(file: string): string {
  return join(dirname(file), `.${basename(file)}.tmp`)
}

/**
 * Removes the temporary files that kills and failures left beside `dataFile`: its own and those of
 * the files named after it (`<name>.namespaces<ext>`, `<name>.ns.<namespace><ext>`,
 * `<name>.snapshot.<snapshot><ext>`, their extension `.json` when DATA_FILE has none). Only for the
 * holder of its lock: another writer's temporary file may be on its way to a rename. A file that
 * cannot be removed stays; the store removes its own before its next write. Resolves with the names removed.
 */
export async function removeTempFiles(dataFile: string, fs: FileSystem = nodeFileSystem): Promise<string[]> {
  const dir = dirname(dataFile)
  const extension = extname(dataFile)
  const stem = basename(dataFile, extension)
  const namedAfter = extension || '.json'
  const isBeside = (file: string): boolean => {
    if (file === basename(dataFile)) return true
    if (!file.startsWith(`${stem}.`) || !file.endsWith(namedAfter)) return false
    const kind = file.slice(stem.length + 1, -namedAfter.length)
    return kind === 'namespaces' || /^(ns|snapshot)\../.test(kind)
  }
  const temporary = (await readdir(dir).catch(() => [])).filter((entry) => {
    const file = /^\.(.+)\.tmp$/.exec(entry)?.[1]
    return file !== undefined && isBeside(file)
  })
  const removed = await Promise.all(
    temporary.map((entry) =>
      fs.remove(join(dir, entry)).then(
        () => entry,
        () => undefined,
      ),
    ),
  )
  return removed.filter((entry) => entry !== undefined)
}
