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
  /** The write under way, and whether a change came after it began. */
  #writing: Promise<void> | undefined
  #again = false

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

  /** Writes `owners` as they are when the write begins; a failed write is told, and the next change writes again. */
  write(owners: ReadonlyMap<string, string>): void {
    if (this.#writing !== undefined) {
      this.#again = true
      return
    }
    const text = JSON.stringify(Object.fromEntries(owners))
    this.#writing = replaceFileDurably(this.#file, tempOf(this.#file), Buffer.from(text))
      .catch((error: unknown) =>
        this.#logger.warn({ err: error }, 'the owners of namespaces could not be written: the next change tries again'),
      )
      .finally(() => {
        this.#writing = undefined
        if (this.#again) {
          this.#again = false
          this.write(owners)
        }
      })
  }

  /** Waits for the writes under way. */
  async settled(): Promise<void> {
    while (this.#writing !== undefined) await this.#writing
  }
}
