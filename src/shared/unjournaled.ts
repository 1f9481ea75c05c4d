// The journal entries of requests a replica answered while the database was away (their 503s):
// kept here, bounded, and written to their namespace's journal once the database is back, by the
// namespace's next hold on this replica, or by a hold made for them alone soon after.
import type { Logger } from 'pino'
import type { RequestRecord } from '../journal/request-record.js'

/** At most this many entries are kept, for all namespaces: beyond, they are dropped (and logged). */
const MAX_KEPT = 10_000
/** How often a hold is tried for the namespaces whose entries wait. */
const FLUSH_EVERY_MS = 1_000

export class Unjournaled {
  readonly #byName = new Map<string, RequestRecord[]>()
  readonly #doubtful = new WeakSet<RequestRecord>()
  #count = 0
  readonly #logger: Pick<Logger, 'error'>
  /** Holds namespace `name` and commits (what it keeps here is written by that hold); set at start. */
  #flush: ((name: string) => Promise<void>) | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(logger: Pick<Logger, 'error'>) {
    this.#logger = logger
  }

  flushWith(flush: (name: string) => Promise<void>): void {
    this.#flush = flush
  }

  /**
   * Keeps entries that a commit of unknown outcome carried: each is journaled unless the journal
   * read back from the database holds it already (the commit took), so it is there once either way.
   */
  doubt(name: string, entries: readonly RequestRecord[]): void {
    for (const entry of entries) this.#doubtful.add(entry)
    this.add(name, entries)
  }

  /** Whether `entry` is doubtful and the records `journaled` (read back from the database) hold it. */
  journaled(entry: RequestRecord, journaled: readonly RequestRecord[]): boolean {
    return this.#doubtful.has(entry) && journaled.some((record) => sameCall(record, entry))
  }

  /** Keeps entries for namespace `name`'s journal, in the order they were answered. */
  add(name: string, entries: readonly RequestRecord[]): void {
    const kept = entries.slice(0, MAX_KEPT - this.#count)
    if (kept.length < entries.length)
      this.#logger.error(
        { namespace: name, dropped: entries.length - kept.length, kept: MAX_KEPT },
        'the database is away: requests answered meanwhile are past what this replica keeps for the journal, and are dropped',
      )
    if (kept.length === 0) return
    this.#byName.set(
      name,
      [...kept, ...(this.#byName.get(name) ?? [])].sort((a, b) => a.time - b.time),
    )
    this.#count += kept.length
    this.#flushSoon()
  }

  /** The entries kept for `name`, no longer kept here: the caller journals them (or gives them back). */
  take(name: string): RequestRecord[] {
    const entries = this.#byName.get(name) ?? []
    this.#byName.delete(name)
    this.#count -= entries.length
    return entries
  }

  #flushSoon(): void {
    if (this.#timer !== undefined || this.#flush === undefined) return
    const flush = this.#flush
    this.#timer = setTimeout(async () => {
      for (const name of [...this.#byName.keys()]) await flush(name).catch(() => undefined)
      this.#timer = undefined
      if (this.#count > 0) this.#flushSoon()
    }, FLUSH_EVERY_MS)
    // Nothing to keep a process alive for: a replica that stops loses what it kept.
    this.#timer.unref()
  }
}

/** One answered call, as its entry and its stored form both tell it. */
function sameCall(a: RequestRecord, b: RequestRecord): boolean {
  return (
    a.time === b.time &&
    a.method === b.method &&
    a.path === b.path &&
    a.status === b.status &&
    a.durationMs === b.durationMs &&
    a.operationId === b.operationId
  )
}
