// The data file's durable file operations: an atomic, fsynced replace of a whole file, a
// directory fsync, and the one error type the store reports file problems with.
import { mkdir, open, rename } from 'node:fs/promises'
import { dirname } from 'node:path'

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
 * Replaces `file` atomically and durably: the text goes to `tempFile`, which is fsynced and
 * renamed over `file`, and the directory is fsynced. A crash leaves the old file or the new one.
 */
export async function replaceFileDurably(file: string, tempFile: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  const temp = await open(tempFile, 'w')
  try {
    await temp.writeFile(text, 'utf8')
    await temp.sync()
  } finally {
    await temp.close()
  }
  await rename(tempFile, file)
  await syncDirectory(dirname(file))
}

/** Makes a rename or a new file in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
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
