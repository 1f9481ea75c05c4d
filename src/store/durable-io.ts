// A lowdb adapter that acknowledges a write only once it is on disk, and writes in groups.
//
// Each write replaces the file atomically: the JSON goes to a temp file, which is fsynced and
// renamed over the data file, and the directory is fsynced. A crash at any moment leaves either
// the old file or the new one, never a torn one.
//
// Group commit: while one write is on its way to disk, the writes asked for meanwhile wait and
// are covered together by the next one, which serialises the data as it is when it starts. A
// caller's promise settles only after a write that began after its call, so the write holds
// every change made before the call.
import { mkdir, open, readFile, rename } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Adapter } from 'lowdb'

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

export class DurableJsonFile<T> implements Adapter<T> {
  readonly file: string
  readonly #tempFile: string
  #data: T | undefined
  #waiting: Batch | undefined
  #writing = false

  constructor(file: string) {
    this.file = file
    this.#tempFile = join(dirname(file), `.${basename(file)}.tmp`)
  }

  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new DataFileError(this.file, `cannot be read: ${(error as Error).message}`)
    }
    try {
      return JSON.parse(text) as T
    } catch (error) {
      throw new DataFileError(this.file, `is not valid JSON (${(error as Error).message}); it was left untouched`)
    }
  }

  write(data: T): Promise<void> {
    this.#data = data
    const waiting = (this.#waiting ??= batch())
    if (!this.#writing) this.#flush()
    return waiting.promise
  }

  #flush(): void {
    const current = this.#waiting
    // The deferred flush after a write can find another write already under way (started by a
    // write() in between): two at once would share the temp file, so it leaves the batch to that one.
    if (!current || this.#writing) return
    this.#waiting = undefined
    this.#writing = true
    const text = JSON.stringify(this.#data)
    replaceFileDurably(this.file, this.#tempFile, text).then(current.resolve, current.reject).finally(() => {
      this.#writing = false
      // Let the callers of a failed write react (undo their changes) before the next write
      // serialises the data.
      setImmediate(() => this.#flush())
    })
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

export function batch(): Batch {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
