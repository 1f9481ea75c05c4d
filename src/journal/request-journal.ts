// The journal: what each namespace received (the control API's `requests`), for tests to verify
// what their client sent. It keeps the latest requests within JOURNAL_SIZE and JOURNAL_BYTES, and
// all journals together within JOURNAL_TOTAL_BYTES (journal-memory.ts), the oldest dropped first,
// and shows them redacted (redactor.ts).
import { CoverageTally } from './coverage-tally.js'
import { JournalMemory, type BoundedJournal } from './journal-memory.js'
import { MAX_RECORDED_BODY, type Redactor } from './redactor.js'
import type { components } from '../contract/admin-types.js'
import type { RequestRecord } from './request-record.js'
import { Ring, type Kept } from './journal-ring.js'

/** One request as the journal shows it, and a page of them: as the control API's spec has them. */
export type JournalEntry = components['schemas']['JournalEntry']
export type JournalPage = components['schemas']['JournalPage']

export interface JournalFilter {
  readonly method?: string | undefined
  /** Exact, or a prefix when it ends with `*`. */
  readonly path?: string | undefined
  readonly operationId?: string | undefined
  readonly status?: number | undefined
  readonly since?: Date | undefined
  readonly traceId?: string | undefined
}

/** Which page of the matching entries: at most `limit` of them, those after the entry `after`. */
export interface JournalCursor {
  readonly limit: number
  readonly after?: number | undefined
}

/**
 * The requests without a valid API key a journal keeps, apart from the others: a flood of them
 * (a scanner, a client without its key) cannot push a namespace's real entries out. They carry no
 * body (it is read only once auth has passed), and take MAX_UNAUTHENTICATED_BYTES of JOURNAL_BYTES.
 */
export const UNAUTHENTICATED_KEPT = 100
const MAX_UNAUTHENTICATED_BYTES = 256 * 1024
/** What a kept request takes besides its strings and body: its objects and their fields. */
const ENTRY_BYTES = 512

export class Journal implements BoundedJournal {
  readonly #redactor: Redactor
  readonly #memory: JournalMemory
  readonly #serial: number
  /** The bytes #memory counts for this journal. */
  #bytes = 0
  /** Set once its namespace is gone: it records nothing more. */
  #closed = false
  readonly #authenticated: Ring
  readonly #unauthenticated: Ring
  /** Ids only grow, across both rings, and clearing does not reset them. */
  #nextId = 1
  #unauthenticatedDropped = 0
  #clears = 0
  #clearedAt = 0
  #tally = new CoverageTally()
  /** Where the counts go when the journal is cleared: the run's (Namespaces.retired). */
  readonly #retired: CoverageTally | undefined

  constructor(size: number, redactor: Redactor, retired?: CoverageTally, memory = new JournalMemory()) {
    this.#redactor = redactor
    this.#retired = retired
    this.#memory = memory
    this.#serial = memory.serial()
    this.#authenticated = new Ring(size, memory.limits.bytes - MAX_UNAUTHENTICATED_BYTES, () => {
      this.tally.journalDropped++
    })
    this.#unauthenticated = new Ring(Math.min(size, UNAUTHENTICATED_KEPT), MAX_UNAUTHENTICATED_BYTES, () => {
      this.#unauthenticatedDropped++
      this.tally.journalDropped++
    })
  }

  /** Every call recorded since the last clear, counted whatever the journal keeps (coverage-tally.ts). */
  get tally(): CoverageTally {
    return this.#tally
  }

  get length(): number {
    return this.#authenticated.length + this.#unauthenticated.length
  }

  /** The bytes its entries take, as estimated from their strings and bodies. */
  get bytes(): number {
    return this.#bytes
  }

  /** Requests without a valid API key dropped to keep the latest UNAUTHENTICATED_KEPT. */
  get unauthenticatedDropped(): number {
    return this.#unauthenticatedDropped
  }

  record(record: RequestRecord): void {
    if (this.#closed) return
    if (record.dropped !== undefined) return this.tally.absorb(CoverageTally.load(record.dropped))
    this.tally.add(record, this.#nextId, this.#redactor)
    this.#keep(record, this.#nextId++)
    this.#memory.onRecord?.(record.namespace)
  }

  /** The id of the latest entry recorded (0 before any). */
  get lastId(): number {
    return this.#nextId - 1
  }

  /** The id of the oldest entry kept, if any. */
  get oldestId(): number | undefined {
    const [a, b] = [this.#authenticated.oldest?.id, this.#unauthenticated.oldest?.id]
    return a === undefined ? b : b === undefined ? a : Math.min(a, b)
  }

  /** How many times it was cleared: a shared database tells a clear from entries dropped by this. */
  get clears(): number {
    return this.#clears
  }

  /** When it was last cleared (epoch ms, 0 if never): a shared database's replicas tell older late entries by it. */
  get clearedAt(): number {
    return this.#clearedAt
  }

  /** The entries kept with an id above `id`, oldest first: what a shared database has yet to hold. */
  recordsAfter(id: number): { id: number; record: RequestRecord }[] {
    const after = [...this.#authenticated.after(id), ...this.#unauthenticated.after(id)]
    return after.sort((x, y) => x.id - y.id).map(({ id, record }) => ({ id, record }))
  }

  /**
   * Takes what another replica recorded (a shared database): its entries after those kept here, or
   * in place of them (`replace`), and its counts, which cover every call. Ids go on after `counts.lastId`,
   * the latest any replica gave, even when a clear took that entry away: an id is never given twice.
   */
  adopt(
    records: readonly { id: number; record: RequestRecord }[],
    tally: CoverageTally,
    counts: { readonly clears: number; readonly clearedAt?: number; readonly lastId: number },
    replace: boolean,
  ): void {
    if (replace) {
      this.#authenticated.clear()
      this.#unauthenticated.clear()
      this.#unauthenticatedDropped = 0
    }
    for (const { id, record } of records) this.#keep(record, id)
    this.#nextId = Math.max(this.#nextId, counts.lastId + 1, (records.at(-1)?.id ?? 0) + 1)
    this.#tally = tally
    this.#clears = counts.clears
    this.#clearedAt = counts.clearedAt ?? 0
    this.#counted()
    this.#memory.recorded(this)
  }

  #keep(record: RequestRecord, id: number): void {
    const ring = record.authenticated ? this.#authenticated : this.#unauthenticated
    if (ring.size === 0) {
      this.tally.journalDropped++
      return
    }
    // Of a body well past the cut, a copy of what is shown (and a byte more, to tell it was cut);
    // a shorter one is kept as received and counted whole, sparing the collector a copy.
    const body =
      record.body !== undefined && record.body.length > 1.25 * MAX_RECORDED_BODY
        ? Buffer.from(record.body.subarray(0, MAX_RECORDED_BODY + 1))
        : record.body
    let bytes = ENTRY_BYTES + (body?.length ?? 0) + record.path.length + record.search.length
    for (const name in record.headers) bytes += name.length + String(record.headers[name]).length
    bytes += (record.fault?.length ?? 0) + (record.error?.message.length ?? 0)
    const kept = body === record.body ? record : { ...record, body }
    ring.push({ id, record: kept, bytes, arrival: this.#memory.arrival() })
    this.#counted()
    this.#memory.recorded(this)
  }

  /** Drops the oldest entry, for the bound all journals share. */
  shed(): void {
    const [a, b] = [this.#authenticated, this.#unauthenticated]
    const older = (b.oldest?.id ?? Infinity) < (a.oldest?.id ?? Infinity) ? b : a
    older.dropOldest()
    this.#counted()
  }

  /** Empties the journal for good, its counts handed on: its namespace is gone. */
  close(): void {
    this.clear()
    this.#closed = true
  }

  /** Tells the shared bound what this journal holds now. */
  #counted(): void {
    const bytes = this.#authenticated.bytes + this.#unauthenticated.bytes
    const delta = bytes - this.#bytes
    this.#bytes = bytes
    this.#memory.changed(this, delta)
  }

  /** Every entry matching the filter, oldest first. */
  find(filter: JournalFilter = {}): JournalEntry[] {
    return this.#matching(filter).map((kept) => this.#entry(kept))
  }

  /** Every entry kept, oldest first, with its place among every journal's (Kept.arrival). */
  arrivals(): { entry: JournalEntry; arrival: number }[] {
    return this.#kept().map((kept) => ({ entry: this.#entry(kept), arrival: kept.arrival }))
  }

  /** One page of the entries matching the filter, and their count; only the page's are shown. */
  page(filter: JournalFilter, { limit, after = 0 }: JournalCursor): JournalPage {
    const matching = this.#matching(filter)
    const rest = matching.filter((kept) => kept.id > after)
    const entries = rest.slice(0, limit).map((kept) => this.#entry(kept))
    return {
      count: matching.length,
      entries,
      next: rest.length > limit ? (entries.at(-1)?.id ?? null) : null,
      unauthenticatedDropped: this.#unauthenticatedDropped,
    }
  }

  /** The entries kept that match the filter, oldest first (the path as shown, redacted). */
  #matching(filter: JournalFilter): Kept[] {
    const { path, operationId, status, traceId } = filter
    const method = filter.method?.toUpperCase()
    const prefix = path?.endsWith('*') ? path.slice(0, -1) : undefined
    const since = filter.since?.getTime()
    return this.#kept().filter(({ record }) => {
      if (
        (method !== undefined && record.method !== method) ||
        (operationId !== undefined && record.operationId !== operationId) ||
        (status !== undefined && record.status !== status) ||
        (since !== undefined && record.time < since) ||
        (traceId !== undefined && record.traceId !== traceId)
      )
        return false
      if (path === undefined) return true
      const shown = this.#redactor.text(record.path)
      return prefix === undefined ? shown === path : shown.startsWith(prefix)
    })
  }

  /** Every entry kept, oldest first. */
  #kept(): Kept[] {
    return this.#unauthenticated.length === 0
      ? this.#authenticated.list()
      : [...this.#authenticated.list(), ...this.#unauthenticated.list()].sort((x, y) => x.id - y.id)
  }

  /** The counts of the entries kept that match the filter; `journalDropped` is the journal's (they may have matched). */
  tallyOf(filter: JournalFilter): CoverageTally {
    const tally = new CoverageTally()
    for (const { id, record } of this.#matching(filter)) tally.add(record, id, this.#redactor)
    tally.journalDropped = this.tally.journalDropped
    return tally
  }

  /** Empties the journal, its counts handed to the run's; returns how many entries were dropped. */
  clear(): number {
    this.retire()
    const cleared = this.length
    this.#authenticated.clear()
    this.#unauthenticated.clear()
    this.#counted()
    this.#unauthenticatedDropped = 0
    this.#clears++
    this.#clearedAt = Date.now()
    return cleared
  }

  /** Hands its counts to the run's (its namespace is cleared, deleted or evicted). */
  retire(): void {
    this.#retired?.absorb(this.#tally)
    this.#tally = new CoverageTally()
  }

  /** A kept request as the control API shows it, redacted. */
  #entry({ id, record, bytes }: Kept): JournalEntry {
    const shown = this.#memory.shown<JournalEntry>(this.#serial, id)
    if (shown !== undefined) return shown
    const redact = this.#redactor
    const entry: JournalEntry = {
      id,
      time: new Date(record.time).toISOString(),
      namespace: record.namespace,
      method: record.method,
      path: redact.text(record.path),
      query: redact.query(record.search),
      headers: redact.headers(record.headers),
      body: redact.body(record.body),
      status: record.status,
      durationMs: record.durationMs,
      operationId: record.operationId,
      fault: record.fault,
      error:
        record.error === undefined ? null : { code: record.error.code, message: redact.text(record.error.message) },
      ...(record.traceId === undefined ? {} : { traceId: record.traceId }),
    }
    this.#memory.remember(this.#serial, id, entry, bytes - ENTRY_BYTES)
    return entry
  }
}
