// A data file read back at start, in chunks: its image, and its append log when it names that image.
import { DataFileError } from './errors.js'
import { nodeFileSystem, type FileSystem } from './file-system.js'
import { readImageText } from './image-text.js'
import { oneLine, readAppendLog, type ReadAppendLog } from './append-log-text.js'

export interface ReadOptions {
  /** The real file system unless a test injects faults. */
  readonly fileSystem?: FileSystem
  /** Files are read this many bytes at a time, never whole. */
  readonly readChunkBytes?: number
}

const READ_CHUNK_BYTES = 1024 * 1024

const chunksOf = (file: string, { fileSystem = nodeFileSystem, readChunkBytes = READ_CHUNK_BYTES }: ReadOptions) =>
  fileSystem.readChunks(file, readChunkBytes)

/**
 * The image, undefined when there is none: line by line in the layout the store writes
 * (image-text.ts), whole in any other (a file of the user's own).
 */
export function readImage(
  file: string,
  key: string,
  options: ReadOptions,
): Promise<{ data: unknown; bytes: number } | undefined> {
  return reading(file, async () => {
    const size = { bytes: 0 }
    const data = await readImageText(key, chunksOf(file, options), size)
    if (data !== undefined) return { data, bytes: size.bytes }
    const bytes = await (options.fileSystem ?? nodeFileSystem).readFile(file)
    try {
      return { data: JSON.parse(bytes.toString('utf8')), bytes: bytes.length }
    } catch (error) {
      throw new DataFileError(file, `is not valid JSON (${oneLine(error)}); it was left untouched`)
    }
  })
}

/** The append log when its header names `imageId`; undefined when it is missing or stale. */
export function readAppendLogOf<R>(
  file: string,
  imageId: string,
  options: ReadOptions,
  startsOver?: (record: R) => boolean,
): Promise<ReadAppendLog<R> | undefined> {
  return reading(file, () => readAppendLog<R>(file, chunksOf(file, options), imageId, startsOver))
}

/** What `read` gives, undefined for a missing file; any other failure is a DataFileError naming it. */
async function reading<T>(file: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof DataFileError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new DataFileError(file, `cannot be read: ${(error as Error).message}`)
  }
}
