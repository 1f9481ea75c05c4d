// The journal: what each namespace received, for tests to verify what their client sent. It is
// bounded (JOURNAL_SIZE entries and JOURNAL_BYTES per namespace, JOURNAL_TOTAL_BYTES for all, the
// oldest dropped first: journal-memory.ts) and never holds a secret:
// the values of credential headers are redacted, and any configured key or token is cut out of
// every recorded string.
import type { IncomingHttpHeaders } from 'node:http'
import { jsonDepth, MAX_JSON_DEPTH } from '../http/body.js'
import { CoverageTally } from './coverage-tally.js'
import { JournalMemory, type BoundedJournal } from './journal-memory.js'
import { JournalRing, type StoredRequest } from './journal-ring.js'

/** One request as the journal records it. */
export interface JournalEntry {
  readonly id: number
  readonly time: string
  readonly namespace: string
  readonly method: string
  readonly path: string
  readonly query: Record<string, string | string[]>
  readonly headers: Record<string, string>
  readonly body: unknown
  /** Null when a fault closed the connection without an answer. */
  readonly status: number | null
  readonly durationMs: number
  /** The operationId matched, or `unmatched`. */
  readonly operationId: string
  /** The fault or Prefer that shaped the answer, if any. */
  readonly fault: string | null
  /** The Error body answered, if one was. */
  readonly error: AnsweredError | null
  /** The trace id of its W3C traceparent, when it carried a valid one (http/trace-context.ts). */
  readonly traceId?: string
}

export interface AnsweredError {
  readonly code: string
  readonly message: string
}

export const UNMATCHED = 'unmatched'
export const REDACTED = '[REDACTED]'
/** Headers whose values are credentials: always redacted (REDACT_HEADERS names more). */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]
/** Bodies are recorded up to this size; a longer one is cut and marked. */
export const MAX_RECORDED_BODY = 64 * 1024

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
  /** An entry's id: the page starts after it. */
  readonly after?: number | undefined
}

/** One page of the matching entries, oldest first. */
export interface JournalPage {
  /** How many entries match the filter, the page's and all others. */
  readonly count: number
  readonly entries: JournalEntry[]
  /** The `after` of the next page: the id of this page's last entry when more match; null otherwise. */
  readonly next: number | null
  /** Requests without a valid API key no longer kept (Journal.unauthenticatedDropped). */
  readonly unauthenticatedDropped: number
}

/**
 * A request as the server hands it to the journal: references to what the server has anyway. The
 * journal keeps a copy of it as bytes (journal-ring.ts); the work of showing it (redaction,
 * parsing the body, formatting) is done on read, as recording happens on every request and
 * reading rarely.
 */
export interface RequestRecord {
  /** Epoch milliseconds. */
  readonly time: number
  readonly namespace: string
  readonly method: string
  readonly path: string
  /** The query string with its `?`, or empty. */
  readonly search: string
  readonly headers: IncomingHttpHeaders
  /** The bytes received, when the body was read. */
  readonly body: Buffer | undefined
  readonly status: number | null
  readonly durationMs: number
  readonly operationId: string
  readonly fault: string | null
  readonly error: AnsweredError | undefined
  /** False when the request carried no valid API key: it is kept apart (UNAUTHENTICATED_KEPT). */
  readonly authenticated: boolean
  readonly traceId: string | undefined
}

/**
 * The requests without a valid API key a journal keeps, apart from the others: a flood of them
 * (a scanner, a client without its key) cannot push a namespace's real entries out.
 */
export const UNAUTHENTICATED_KEPT = 100
// They carry no body (it is read only once auth has passed): headers and a path. Part of
// JOURNAL_BYTES, the rest of which holds the other requests.
const MAX_UNAUTHENTICATED_BYTES = 256 * 1024

/** One ring of a journal within its bounds: the oldest records are dropped first. */
class Part {
  readonly size: number
  readonly #maxBytes: number
  readonly #dropped: (id: number) => void
  /** Made by the first request recorded (most namespaces of a suite record few or none). */
  #ring: JournalRing | undefined

  constructor(size: number, maxBytes: number, dropped: (id: number) => void) {
    this.size = size
    this.#maxBytes = maxBytes
    this.#dropped = dropped
  }

  get length(): number {
    return this.#ring?.length ?? 0
  }

  get ring(): JournalRing {
    return (this.#ring ??= new JournalRing(this.size, this.#maxBytes))
  }

  /** The bytes it holds, as allocated. */
  get bytes(): number {
    return this.#ring?.bytes ?? 0
  }

  /** The id of its oldest entry, if it has one. */
  get oldestId(): number | undefined {
    return this.length > 0 ? this.ring.id(0) : undefined
  }

  push(request: StoredRequest, id: number): void {
    // Bounded in count and in bytes: the oldest entries are dropped first, the newest always kept.
    while (this.length >= this.size) this.dropOldest()
    const ring = this.ring
    // Slots for one more request cost bytes too: past the bound, the oldest request's slot is reused.
    if (this.length > 0 && ring.growthBytes > 0 && ring.bytes + ring.growthBytes > this.#maxBytes) this.dropOldest()
    ring.push(request, id)
    while (ring.bytes > this.#maxBytes && this.length > 1) this.dropOldest()
  }

  dropOldest(): void {
    const id = this.ring.id(0)
    this.ring.dropOldest()
    this.#dropped(id)
  }

  clear(): void {
    this.#ring?.clear()
  }
}

export class Journal implements BoundedJournal {
  readonly #redactor: Redactor
  /** The bounds in bytes, this journal's and the one all journals share; and the entries shown lately. */
  readonly #memory: JournalMemory
  readonly #serial: number
  /** The bytes #memory counts for this journal. */
  #bytes = 0
  /** Set once its namespace is gone: it records nothing more. */
  #closed = false
  /** The requests with a valid API key, and apart, those without. */
  readonly #authenticated: Part
  readonly #unauthenticated: Part
  readonly #parts: readonly Part[]
  /** Ids only grow, across both parts, and clearing does not reset them. */
  #nextId = 1
  #unauthenticatedDropped = 0
  /** Every call recorded since the last clear, counted whatever the journal keeps (coverage-tally.ts). */
  readonly tally = new CoverageTally()
  /** Where the counts go when the journal is cleared: the run's (Namespaces.retired). */
  readonly #retired: CoverageTally | undefined

  constructor(size: number, redactor: Redactor, retired?: CoverageTally, memory = new JournalMemory()) {
    this.#redactor = redactor
    this.#retired = retired
    this.#memory = memory
    this.#serial = memory.serial()
    this.#authenticated = new Part(size, memory.limits.bytes - MAX_UNAUTHENTICATED_BYTES, () => {
      this.tally.journalDropped++
    })
    this.#unauthenticated = new Part(Math.min(size, UNAUTHENTICATED_KEPT), MAX_UNAUTHENTICATED_BYTES, () => {
      this.#unauthenticatedDropped++
      this.tally.journalDropped++
    })
    this.#parts = [this.#authenticated, this.#unauthenticated]
  }

  get length(): number {
    return this.#authenticated.length + this.#unauthenticated.length
  }

  /** The bytes it holds (its buffers and slots, as allocated). */
  get bytes(): number {
    return this.#bytes
  }

  /** Requests without a valid API key dropped from the journal to keep the latest UNAUTHENTICATED_KEPT. */
  get unauthenticatedDropped(): number {
    return this.#unauthenticatedDropped
  }

  record(record: RequestRecord): void {
    const part = record.authenticated ? this.#authenticated : this.#unauthenticated
    if (this.#closed) return
    this.tally.add(record, this.#nextId, this.#redactor)
    if (part.size === 0) {
      this.tally.journalDropped++
      return
    }
    // The part that will be shown (and one byte more, to tell it was cut), never a whole
    // megabyte-sized upload.
    const body =
      record.body !== undefined && record.body.length > MAX_RECORDED_BODY
        ? record.body.subarray(0, MAX_RECORDED_BODY + 1)
        : record.body
    const headers: string[] = []
    for (const name in record.headers) {
      const value = record.headers[name]
      if (value === undefined) continue
      headers.push(name, Array.isArray(value) ? value.join(', ') : value)
    }
    part.push({ ...record, headers, body }, this.#nextId++)
    this.#counted()
    this.#memory.recorded(this)
  }

  /** Drops the oldest entry, for the bound all journals share. */
  shed(): void {
    const [a, b] = this.#parts.map((p) => p.oldestId ?? Infinity) as [number, number]
    if (a === Infinity && b === Infinity) return
    ;(a < b ? this.#authenticated : this.#unauthenticated).dropOldest()
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
    const found: JournalEntry[] = []
    this.#eachMatch(filter, (ring, k) => found.push(this.#entry(ring, k)))
    return found
  }

  /**
   * One page of the entries matching the filter, and their count. Only the page's entries are
   * made (read back, redacted, their bodies parsed): counting the others costs the filter alone.
   */
  page(filter: JournalFilter, { limit, after = 0 }: JournalCursor): JournalPage {
    let count = 0
    let rest = 0
    const entries: JournalEntry[] = []
    this.#eachMatch(filter, (ring, k) => {
      count++
      if (ring.id(k) <= after) return
      if (entries.length < limit) entries.push(this.#entry(ring, k))
      else rest++
    })
    return {
      count,
      entries,
      next: rest > 0 ? (entries.at(-1)?.id ?? null) : null,
      unauthenticatedDropped: this.#unauthenticatedDropped,
    }
  }

  /** Calls `visit` with each entry matching the filter, oldest first: the two parts merged by id. */
  #eachMatch(filter: JournalFilter, visit: (ring: JournalRing, k: number) => void): void {
    const [first, second] = this.#parts
      .filter((part) => part.length > 0)
      .map(({ ring }) => ({ ring, matches: this.#matcher(ring, filter) }))
    if (first === undefined) return
    let j = 0
    for (let k = 0; k < first.ring.length; k++) {
      if (second) {
        const id = first.ring.id(k)
        for (; j < second.ring.length && second.ring.id(j) < id; j++) if (second.matches(j)) visit(second.ring, j)
      }
      if (first.matches(k)) visit(first.ring, k)
    }
    if (second) for (; j < second.ring.length; j++) if (second.matches(j)) visit(second.ring, j)
  }

  /**
   * Whether the k-th oldest entry of `kept` matches every filter given. The fields kept as numbers
   * are compared first; the path and trace id, read back only then, after them (the path as shown,
   * redacted).
   */
  #matcher(kept: JournalRing, filter: JournalFilter): (k: number) => boolean {
    const { path, operationId, status, traceId } = filter
    const method = filter.method === undefined ? undefined : (kept.codeOf(filter.method.toUpperCase()) ?? -1)
    const operation = operationId === undefined ? undefined : (kept.codeOf(operationId) ?? -1)
    const prefix = path?.endsWith('*') ? path.slice(0, -1) : undefined
    const since = filter.since?.getTime()
    return (k) => {
      if (
        (method !== undefined && kept.methodCode(k) !== method) ||
        (operation !== undefined && kept.operationCode(k) !== operation) ||
        (status !== undefined && kept.status(k) !== status) ||
        (since !== undefined && kept.time(k) < since)
      )
        return false
      if (path === undefined && traceId === undefined) return true
      const read = kept.read(k)
      if (traceId !== undefined && read.traceId !== traceId) return false
      if (path === undefined) return true
      const shown = this.#redactor.text(read.path)
      return prefix === undefined ? shown === path : shown.startsWith(prefix)
    }
  }

  /**
   * The counts of the entries kept that match the filter, as `tally` counts every call. Those it
   * dropped are not in it, but its `journalDropped` is the journal's: they may have matched.
   */
  tallyOf(filter: JournalFilter): CoverageTally {
    const tally = new CoverageTally()
    this.#eachMatch(filter, (ring, k) =>
      tally.add({ ...ring.read(k), headers: {}, body: undefined, authenticated: true }, ring.id(k), this.#redactor),
    )
    tally.journalDropped = this.tally.journalDropped
    return tally
  }

  /** Empties the journal, its counts handed to the run's; returns how many entries were dropped. */
  clear(): number {
    this.retire()
    const cleared = this.length
    for (const part of this.#parts) part.clear()
    this.#counted()
    this.#unauthenticatedDropped = 0
    return cleared
  }

  /** Hands its counts to the run's (its namespace is cleared, deleted or evicted). */
  retire(): void {
    this.#retired?.absorb(this.tally)
    this.tally.clear()
  }

  /** The k-th oldest entry of `kept` as the control API shows it, redacted. */
  #entry(kept: JournalRing, k: number): JournalEntry {
    const id = kept.id(k)
    const shown = this.#memory.shown<JournalEntry>(this.#serial, id)
    if (shown !== undefined) return shown
    const item = kept.read(k)
    const redact = this.#redactor
    const headers: Record<string, string> = Object.create(null)
    for (let i = 0; i + 1 < item.headers.length; i += 2)
      headers[item.headers[i] as string] = item.headers[i + 1] as string
    const entry: JournalEntry = {
      id,
      time: new Date(item.time).toISOString(),
      namespace: item.namespace,
      method: item.method,
      path: redact.text(item.path),
      query: redact.query(item.search),
      headers: redact.headers(headers),
      body: redact.body(item.body === undefined ? undefined : Buffer.from(item.body)),
      status: item.status,
      durationMs: item.durationMs,
      operationId: item.operationId,
      fault: item.fault,
      error: item.error === undefined ? null : { code: item.error.code, message: redact.text(item.error.message) },
      ...(item.traceId === undefined ? {} : { traceId: item.traceId }),
    }
    this.#memory.remember(this.#serial, id, entry, kept.storedBytes(k))
    return entry
  }
}

export interface RedactorOptions {
  /** Every token made of it and a namespace name is a key too (NAMESPACE_KEY_PREFIX). */
  readonly keyPrefix?: string | undefined
  /** Headers redacted besides CREDENTIAL_HEADERS, in lower case (REDACT_HEADERS). */
  readonly headers?: readonly string[] | undefined
}

/** Removes secrets from what a request carried, before it is recorded anywhere. */
export class Redactor {
  readonly #secrets: readonly string[]
  readonly #keyFamily: RegExp | undefined
  readonly #credentialHeaders: ReadonlySet<string>

  constructor(secrets: readonly string[], { keyPrefix, headers = [] }: RedactorOptions = {}) {
    // Longest first, so a key that contains another is cut whole.
    this.#secrets = [...new Set(secrets)].filter((s) => s !== '').sort((a, b) => b.length - a.length)
    this.#keyFamily = keyPrefix
      ? new RegExp(`${keyPrefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[A-Za-z0-9_.-]+`, 'g')
      : undefined
    this.#credentialHeaders = new Set([...CREDENTIAL_HEADERS, ...headers])
  }

  text(value: string): string {
    let text = value
    for (const secret of this.#secrets) if (text.includes(secret)) text = text.replaceAll(secret, REDACTED)
    return this.#keyFamily ? text.replace(this.#keyFamily, REDACTED) : text
  }

  headers(raw: Record<string, string | string[] | undefined>): Record<string, string> {
    const headers: Record<string, string> = Object.create(null)
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue
      const joined = Array.isArray(value) ? value.join(', ') : value
      headers[name] = this.#credentialHeaders.has(name) ? this.#credential(name, joined) : this.text(joined)
    }
    return headers
  }

  query(search: string): Record<string, string | string[]> {
    const query: Record<string, string | string[]> = Object.create(null)
    for (const [name, value] of new URLSearchParams(search)) {
      const key = this.text(name)
      const clean = this.text(value)
      const seen = query[key]
      query[key] = seen === undefined ? clean : Array.isArray(seen) ? [...seen, clean] : [seen, clean]
    }
    return query
  }

  /**
   * What a test may verify of a credential without seeing it: the scheme of an Authorization, the
   * names of the cookies sent; any other credential header is shown as REDACTED alone.
   */
  #credential(name: string, value: string): string {
    if (name === 'authorization' || name === 'proxy-authorization') {
      const scheme = /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value)?.[1]
      return scheme ? `${scheme} ${REDACTED}` : REDACTED
    }
    if (name === 'cookie') {
      const names = value.split(';').map((pair) => /^\s*([!#$%&'*+.^_`|~\w-]+)=/.exec(pair)?.[1])
      if (names.every((cookie) => cookie !== undefined))
        return names.map((cookie) => `${this.text(cookie)}=${REDACTED}`).join('; ')
    }
    return REDACTED
  }

  /** The body as JSON when it parses, as text otherwise; null when empty. */
  body(raw: Buffer | undefined): unknown {
    if (raw === undefined || raw.length === 0) return null
    const cut = raw.length > MAX_RECORDED_BODY
    const text = this.text(raw.subarray(0, MAX_RECORDED_BODY).toString('utf8'))
    if (cut) return `${text}… [cut at ${MAX_RECORDED_BODY} bytes]`
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return text
    }
    // Deeper than a body may be, it was refused with a 400; the walks over journal entries
    // (verify's, JSON.stringify's) would overflow on it: it is shown as its text.
    return jsonDepth(text) > MAX_JSON_DEPTH ? text : value
  }
}
