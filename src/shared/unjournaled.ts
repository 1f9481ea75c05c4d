// The journal entries of requests a replica answered while the database was away (their 503s):
// kept here, bounded, and written to their namespace's journal once the database is back, by the
// namespace's next hold on this replica, or by a hold made for them alone soon after. Past the
// bounds, the oldest are counted only, as the journal counts what it drops: coverage still has
// every call, and a verify that depends on them says it is incomplete. The entries other replicas
// handed to this one's namespaces wait here too (handed.ts), until a hold journals them.
import type { Logger } from 'pino'
import { CoverageTally } from '../journal/coverage-tally.js'
import type { Redactor } from '../journal/redactor.js'
import { UNMATCHED, type RequestRecord } from '../journal/request-record.js'
import type { Journal } from '../journal/request-journal.js'
import { HandedIds } from './handed.js'
import { stored } from './changes.js'
import type { HandedRow, StoredRecord } from './tables.js'

/** At most this many entries are kept, for all namespaces: beyond, the oldest are counted only. */
const MAX_KEPT = 10_000
/** How often a hold is tried for the namespaces whose entries wait. */
const FLUSH_EVERY_MS = 1_000

/** What a hold takes of the kept entries (`late`), and those of them not journaled already. */
export interface Late {
  readonly late: RequestRecord[]
  readonly unwritten: RequestRecord[]
}

export class Unjournaled {
  readonly #byName = new Map<string, RequestRecord[]>()
  /** Per namespace, the calls past the bounds: counted, not kept. */
  readonly #counted = new Map<string, CoverageTally>()
  readonly #doubtful = new WeakSet<RequestRecord>()
  /** Entries other replicas handed, kept here until their rows leave the table. */
  readonly handed = new HandedIds()
  #count = 0
  readonly #logger: Pick<Logger, 'error'>
  readonly #redactor: Redactor
  /** JOURNAL_SIZE: a journal keeps no more of a namespace's entries than this. */
  readonly #journalSize: number
  /** Holds namespace `name` and commits (what it keeps here is written by that hold); set at start. */
  #flush: ((name: string) => Promise<void>) | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(logger: Pick<Logger, 'error'>, redactor: Redactor, journalSize: number) {
    this.#logger = logger
    this.#redactor = redactor
    this.#journalSize = journalSize
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

  /**
   * What a hold of namespace `name` journals, or hands on to its owner: the entries kept here, with
   * the `handed` rows its transaction read not kept yet (`late`: see HandedIds.fresh). Of these, an
   * entry that may be journaled already (doubtful, or handed) is not written again if `journal`
   * (just read) holds it.
   */
  forHold(name: string, handed: readonly HandedRow[], journal: Journal): Late {
    const late = [...this.handed.fresh(name, handed), ...this.take(name)]
    // Looked up by call, once: a hold may carry thousands of handed entries against a journal as long.
    const checked = late.some((entry) => this.#mayBeJournaled(entry))
    const journaled = new Set(checked ? journal.recordsAfter(0).map(({ record }) => callOf(record)) : [])
    const written = (entry: RequestRecord): boolean => this.#mayBeJournaled(entry) && journaled.has(callOf(entry))
    return { late, unwritten: late.filter((entry) => !written(entry)).sort((a, b) => a.time - b.time) }
  }

  /** Namespace `name` was deleted: what was kept for its journal goes with it, rather than make it again. */
  drop(name: string): void {
    this.handed.letGo(name, this.handed.ids(this.take(name)))
  }

  /** Whether entries wait here for namespace `name`'s journal. */
  keeps(name: string): boolean {
    return this.#byName.has(name) || this.#counted.has(name)
  }

  /**
   * The entries kept for namespace `name`'s journal and answered before its latest deletion (epoch
   * ms, read by `deletedAt` when some are kept) went with it, rather than join a namespace made again
   * under its name. The calls counted only are older than any entry kept: they go when one goes.
   */
  async sinceDeletion(name: string, deletedAt: () => Promise<number | undefined>): Promise<void> {
    if (!this.keeps(name)) return
    const at = await deletedAt()
    if (at === undefined) return
    const entries = this.take(name)
    if (!entries.some((entry) => entry.dropped === undefined && entry.time < at)) return this.add(name, entries)
    const after = new Set(entries.filter((entry) => entry.dropped === undefined && entry.time >= at))
    this.handed.letGo(name, this.handed.ids(entries.filter((entry) => !after.has(entry))))
    this.add(name, [...after])
  }

  /**
   * Records `entries` in namespace `name`'s journal (its owner's hold), but those answered before
   * the journal was last cleared (a reset after them took them too): a handed one's row goes alike.
   */
  journalInto(name: string, journal: Journal, entries: readonly RequestRecord[]): void {
    for (const entry of entries) {
      if (entry.dropped !== undefined || entry.time >= journal.clearedAt) journal.record(entry)
      this.handed.recorded(name, entry)
    }
  }

  /** `entries` as they are handed on to their namespace's owner: one handed before keeps its row's id. */
  handing(entries: readonly RequestRecord[]): { id: string | undefined; record: StoredRecord }[] {
    return entries.map((entry) => ({ id: this.handed.idOf(entry), record: stored(entry, this.#redactor) }))
  }

  /** Entries a commit carried where they belong (the journal, or the owner's hand): their rows are no longer kept here. */
  carried(name: string, entries: readonly RequestRecord[]): void {
    this.handed.letGo(name, this.handed.ids(entries))
  }

  /** Doubtful, or handed: never only counted, as its call may be journaled elsewhere (by a commit that took, or from its row). */
  #mayBeJournaled(entry: RequestRecord): boolean {
    return this.#doubtful.has(entry) || this.handed.idOf(entry) !== undefined
  }

  /**
   * Keeps entries for namespace `name`'s journal, in the order they were answered: its latest
   * JOURNAL_SIZE, within MAX_KEPT for all. The others are counted (a doubtful or handed one is kept:
   * it is counted once the database says whether it is journaled already).
   */
  add(name: string, entries: readonly RequestRecord[]): void {
    const before = this.#byName.get(name) ?? []
    const all = [...before]
    for (const entry of entries)
      if (this.handed.wasRecorded(entry)) this.handed.letGo(name, this.handed.ids([entry]))
      else if (entry.dropped === undefined || this.handed.idOf(entry) !== undefined) all.push(entry)
      else this.#countedOf(name).absorb(CoverageTally.load(entry.dropped))
    all.sort((a, b) => a.time - b.time)
    const overAll = this.#count - before.length + all.length - MAX_KEPT
    const past = Math.max(all.length - this.#journalSize, overAll)
    const counted = this.#countedOf(name)
    const kept: RequestRecord[] = []
    for (const [i, entry] of all.entries()) {
      if (i >= past || this.#mayBeJournaled(entry)) kept.push(entry)
      else {
        counted.add(entry, 0, this.#redactor)
        counted.journalDropped++
      }
    }
    if (overAll > 0)
      this.#logger.error(
        { namespace: name, kept: MAX_KEPT },
        'the database is away: requests answered meanwhile are past what this replica keeps for the journal, and are counted only',
      )
    if (counted.calls === 0) this.#counted.delete(name)
    if (kept.length === 0) this.#byName.delete(name)
    else this.#byName.set(name, kept)
    this.#count += kept.length - before.length
    if (this.#count > 0 || this.#counted.size > 0) this.#flushSoon()
  }

  /**
   * The entries kept for `name`, no longer kept here, with a record that stands for the calls
   * counted only: the caller journals them (or gives them back).
   */
  take(name: string): RequestRecord[] {
    const entries = this.#byName.get(name) ?? []
    this.#byName.delete(name)
    this.#count -= entries.length
    const counted = this.#counted.get(name)
    this.#counted.delete(name)
    return counted === undefined ? entries : [droppedCalls(name, counted), ...entries]
  }

  #countedOf(name: string): CoverageTally {
    let counted = this.#counted.get(name)
    if (counted === undefined) this.#counted.set(name, (counted = new CoverageTally()))
    return counted
  }

  #flushSoon(): void {
    if (this.#timer !== undefined || this.#flush === undefined) return
    const flush = this.#flush
    this.#timer = setTimeout(async () => {
      const names = new Set([...this.#byName.keys(), ...this.#counted.keys()])
      for (const name of names) await flush(name).catch(() => undefined)
      this.#timer = undefined
      if (this.#count > 0 || this.#counted.size > 0) this.#flushSoon()
    }, FLUSH_EVERY_MS)
    // Nothing to keep a process alive for: a replica that stops loses what it kept.
    this.#timer.unref()
  }
}

/** A record that stands for the calls `counted`: the journal adds their counts to its own. */
function droppedCalls(name: string, counted: CoverageTally): RequestRecord {
  return {
    time: 0,
    namespace: name,
    method: '',
    path: '',
    search: '',
    headers: {},
    body: undefined,
    status: null,
    durationMs: 0,
    operationId: UNMATCHED,
    fault: null,
    error: undefined,
    authenticated: true,
    traceId: undefined,
    dropped: counted.dump(),
  }
}

/** One answered call, as its entry and its stored form both tell it. */
function callOf({ time, method, path, status, durationMs, operationId }: RequestRecord): string {
  return JSON.stringify([time, method, path, status, durationMs, operationId])
}
