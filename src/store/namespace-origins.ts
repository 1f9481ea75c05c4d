// Where the namespaces that have no file of their own start from: one log beside the data file,
// shared by all of them, with a line per reset (to a snapshot, a seed or the initial data). So a
// new namespace made from a snapshot costs one appended line, committed together with the others
// under way, instead of a file of its own and a directory fsync. Once a namespace has files of its
// own (its first create), they come first: its own journal begins with the reset this log holds.
//
//   db.namespaces.json          {"origins": [{"namespace", "reset", "initial"}, ...], "journal": id}
//   db.namespaces.json.journal  a header line, then one change per line: {"namespace", "reset",
//                               "initial"} or {"namespace", "gone": true} (deleted or evicted)
//
// `initial` is the origin of the data the namespaces started from when the line was written (as a
// namespace's own journal names it in its header): a start of other data settings ignores it, and
// the namespace starts anew.
//
// The log is a JournaledJsonFile (data-file.ts): appends fsynced before they are acknowledged,
// folded into its snapshot as the stores' journals are, a torn end dropped at start.
import { basename, dirname, extname, join } from 'node:path'
import { JournaledJsonFile, type DataFileOptions } from './data-file.js'
import { DataFileError } from './durable-io.js'
import type { DroppedTail } from './journal-text.js'

/** A line of the log: the namespace's data is now that of `reset`, or (`gone`) it has none here. */
export type OriginRecord = Origin | NamespaceGone
interface Origin {
  readonly namespace: string
  readonly reset: string
  /** The origin of the initial data when it was written. */
  readonly initial: string
}
interface NamespaceGone {
  readonly namespace: string
  readonly gone: true
}

interface OriginsData {
  /** One per namespace, in no particular order. */
  origins: Origin[]
}

export class NamespaceOrigins {
  readonly file: string
  /** The origin of the initial data of this start: an entry written under another is ignored. */
  readonly #initial: string
  readonly #file: JournaledJsonFile<OriginsData, OriginRecord>
  readonly #data: OriginsData
  readonly #byName = new Map<string, Origin>()

  private constructor(
    file: string,
    initial: string,
    adapter: JournaledJsonFile<OriginsData, OriginRecord>,
    data: OriginsData,
  ) {
    this.file = file
    this.#initial = initial
    this.#file = adapter
    this.#data = data
    for (const origin of data.origins) this.#byName.set(origin.namespace, origin)
  }

  /**
   * The log beside `dataFile`, read back (a bad file stops the start, naming it), for namespaces
   * whose initial data is that of `initial`.
   */
  static async open(dataFile: string, initial: string, options: DataFileOptions = {}): Promise<NamespaceOrigins> {
    const file = originsFileOf(dataFile)
    const adapter = new JournaledJsonFile<OriginsData, OriginRecord>(file, 'origins', options, {
      replay: async (data, records) => applyRecords(file, data, records),
      unwritten: { id: 'none', data: async () => ({ origins: [] }) },
    })
    const read = await adapter.read()
    const data = read === null ? { origins: [] } : checkOrigins(file, read)
    return new NamespaceOrigins(file, initial, adapter, data)
  }

  /** What the start dropped from the end of the log's journal, if anything (a torn append). */
  get droppedTail(): DroppedTail | undefined {
    return this.#file.droppedTail
  }

  /** The namespaces the log names. */
  names(): string[] {
    return [...this.#byName.keys()]
  }

  /** The origin of the last reset of `namespace` the log holds (written from this start's initial data). */
  originOf(namespace: string): string | undefined {
    const origin = this.#byName.get(namespace)
    return origin?.initial === this.#initial ? origin.reset : undefined
  }

  /** Records that `namespace` now holds the data of `origin`; resolves once that is durable. */
  async set(namespace: string, origin: string): Promise<void> {
    const record = { namespace, reset: origin, initial: this.#initial }
    const before = this.#byName.get(namespace)
    this.#put(namespace, record, before)
    try {
      await this.#write(record)
    } catch (error) {
      this.#put(namespace, before, record)
      throw error
    }
  }

  /** Records that `namespace` is gone (a no-op when the log does not name it); resolves once durable. */
  async forget(namespace: string): Promise<void> {
    const before = this.#byName.get(namespace)
    if (before === undefined) return
    this.#put(namespace, undefined, before)
    try {
      await this.#write({ namespace, gone: true })
    } catch (error) {
      this.#put(namespace, before, undefined)
      throw error
    }
  }

  /** Waits for the writes asked for, and folds the log if it holds anything. */
  flush(): Promise<void> {
    return this.#file.compact(this.#data)
  }

  /**
   * One line, written as a change of the data rather than an added record: where the log must be
   * written whole first (after a failed fold), the whole of it goes, this change included, since
   * the data without it is no longer at hand.
   */
  #write(record: OriginRecord): Promise<void> {
    return this.#file.replaceWith(this.#data, record)
  }

  /** Replaces `old` (if any) with `origin` (if any) as the entry of `namespace`. */
  #put(namespace: string, origin: Origin | undefined, old: Origin | undefined): void {
    const origins = this.#data.origins
    const at = old === undefined ? -1 : origins.lastIndexOf(old)
    if (origin === undefined) {
      if (at !== -1) origins.splice(at, 1)
      this.#byName.delete(namespace)
      return
    }
    if (at === -1) origins.push(origin)
    else origins[at] = origin
    this.#byName.set(namespace, origin)
  }
}

/** `db.json` → `db.namespaces.json`, beside it. */
export function originsFileOf(dataFile: string): string {
  const extension = extname(dataFile)
  return join(dirname(dataFile), `${basename(dataFile, extension)}.namespaces${extension || '.json'}`)
}

function applyRecords(file: string, data: OriginsData, records: readonly OriginRecord[]): OriginsData {
  const byName = new Map(data.origins.map((origin) => [origin.namespace, origin]))
  for (const record of records) {
    if (isGone(record)) byName.delete(record.namespace)
    else if (isOrigin(record)) byName.set(record.namespace, record)
    else
      throw new DataFileError(
        `${file}.journal`,
        `has a line that is neither a namespace's origin nor its removal (${JSON.stringify(record).slice(0, 80)}); it was left untouched`,
      )
  }
  return { origins: [...byName.values()] }
}

function checkOrigins(file: string, data: unknown): OriginsData {
  const origins = (data as Partial<OriginsData> | null)?.origins
  if (!Array.isArray(origins) || !origins.every(isOrigin))
    throw new DataFileError(
      file,
      'must hold {"origins": [{"namespace", "reset", "initial"}, ...]}; it was left untouched',
    )
  return { origins }
}

function isOrigin(value: unknown): value is Origin {
  const { namespace, reset, initial } = (value ?? {}) as Partial<Origin>
  return typeof namespace === 'string' && typeof reset === 'string' && typeof initial === 'string'
}

function isGone(value: unknown): value is NamespaceGone {
  const { namespace, gone } = (value ?? {}) as Partial<NamespaceGone>
  return typeof namespace === 'string' && gone === true
}
