// The temporary files beside DATA_FILE that failed writes leave (a write refused, then the removal
// of its temporary file refused too). A start removes them; so does the first write that succeeds
// after such a failure, so that a long run does not keep them, and their disk space, until a restart.
import { dirname, join } from 'node:path'
import type { FileSystem } from './file-system.js'
import { scanFiles } from './files.js'

export class TempFiles {
  readonly #dataFile: string
  readonly #fs: FileSystem
  /** The temporary files being written now: never swept. */
  readonly #writing = new Map<string, number>()
  /** A write failed since the last sweep: a temporary file may be left. */
  #mayBeLeft = false
  #sweeping: Promise<void> | undefined

  constructor(dataFile: string, fs: FileSystem) {
    this.#dataFile = dataFile
    this.#fs = fs
  }

  /** Runs `write`, which makes `temp` and renames or removes it; a sweep never removes `temp` meanwhile. */
  async writing<T>(temp: string, write: () => Promise<T>): Promise<T> {
    while (this.#sweeping !== undefined) await this.#sweeping
    this.#writing.set(temp, (this.#writing.get(temp) ?? 0) + 1)
    try {
      const written = await write()
      this.succeeded()
      return written
    } catch (error) {
      this.failed()
      throw error
    } finally {
      const writers = (this.#writing.get(temp) ?? 1) - 1
      if (writers > 0) this.#writing.set(temp, writers)
      else this.#writing.delete(temp)
    }
  }

  /** A write failed, or a temporary file could not be removed: the next write that succeeds sweeps. */
  failed(): void {
    this.#mayBeLeft = true
  }

  /** A write succeeded: the disk takes writes again, so what failures left is removed now. */
  succeeded(): void {
    if (!this.#mayBeLeft || this.#sweeping !== undefined) return
    this.#mayBeLeft = false
    this.#sweeping = this.#sweep().finally(() => (this.#sweeping = undefined))
  }

  async #sweep(): Promise<void> {
    const directory = dirname(this.#dataFile)
    const found = await scanFiles(this.#dataFile).catch(() => undefined)
    if (found === undefined) return void (this.#mayBeLeft = true)
    for (const entry of found.temporary) {
      const path = join(directory, entry)
      if (this.#writing.has(path)) continue
      await this.#fs.remove(path).catch(() => (this.#mayBeLeft = true))
    }
  }
}
