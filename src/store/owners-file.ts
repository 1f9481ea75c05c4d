// Which API key made each namespace of a data file, by the key's hash (NAMESPACES_PER_KEY), so that
// a restart counts the namespaces on disk against their keys again. The file is rewritten whole,
// durably, after each change; changes made while it is written go in one more write.
import type { Logger } from 'pino'
import { replaceFileDurably } from './durable-io.js'
import { DataFileError } from './errors.js'
import { nodeFileSystem } from './file-system.js'
import { tempOf } from './files.js'

export class OwnersFile {
  readonly #file: string
  readonly #logger: Pick<Logger, 'warn'>
  #owners: ReadonlyMap<string, string> = new Map()
  /** Changes asked for, and the last of them on disk. */
  #changes = 0
  #written = 0
  /** The write under way, which writes the changes up to `#changes` as it began. */
  #writing: Promise<void> | undefined

  constructor(file: string, logger: Pick<Logger, 'warn'>) {
    this.#file = file
    this.#logger = logger
  }

  /** The owner of each name (none when there is no file yet); a file that is not such a map stops the start. */
  async read(): Promise<Map<string, string>> {
    const text = await nodeFileSystem.readFile(this.#file).then(
      (bytes) => bytes.toString('utf8'),
      (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '{}' : Promise.reject(error)),
    )
    let owners: unknown
    try {
      owners = JSON.parse(text)
    } catch {
      owners = undefined
    }
    const entries = typeof owners === 'object' && owners !== null ? Object.entries(owners) : undefined
    if (entries === undefined || entries.some(([, owner]) => typeof owner !== 'string'))
      throw new DataFileError(this.#file, 'is not a JSON object of namespace names and key hashes')
    return new Map(entries as [string, string][])
  }

  /** `owners` changed: written as they are when the next write begins. A failed write is told, and tried again at the next. */
  write(owners: ReadonlyMap<string, string>): void {
    this.#owners = owners
    this.#changes++
    void this.durable().catch((error: unknown) =>
      this.#logger.warn({ err: error }, 'the owners of namespaces could not be written: the next change tries again'),
    )
  }

  /** Resolves once every change asked for so far is on disk; rejects when the disk refused it. */
  async durable(): Promise<void> {
    const wanted = this.#changes
    while (this.#written < wanted) {
      if (this.#writing === undefined) {
        const changes = this.#changes
        const text = JSON.stringify(Object.fromEntries(this.#owners))
        this.#writing = replaceFileDurably(this.#file, tempOf(this.#file), Buffer.from(text))
          .then(() => {
            this.#written = Math.max(this.#written, changes)
          })
          .finally(() => (this.#writing = undefined))
      }
      await this.#writing
    }
  }
}
