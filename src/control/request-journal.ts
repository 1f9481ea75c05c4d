// The journal: what each namespace received, for tests to verify what their client sent. It is
// bounded (JOURNAL_SIZE entries per namespace, the oldest dropped first) and never holds a secret:
// Authorization is redacted, and any configured key or token is cut out of every recorded string.
import type { IncomingHttpHeaders } from 'node:http'

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
}

export interface AnsweredError {
  readonly code: string
  readonly message: string
}

export const UNMATCHED = 'unmatched'
export const REDACTED = '[REDACTED]'
/** Bodies are recorded up to this size; a longer one is cut and marked. */
export const MAX_RECORDED_BODY = 64 * 1024
/** What one namespace's journal may hold, roughly (bodies, headers, paths): older entries go first. */
export const MAX_JOURNAL_BYTES = 4 * 1024 * 1024

export interface JournalFilter {
  readonly method?: string | undefined
  /** Exact, or a prefix when it ends with `*`. */
  readonly path?: string | undefined
  readonly operationId?: string | undefined
  readonly status?: number | undefined
  readonly since?: Date | undefined
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
}

/**
 * What is kept of a request until somebody reads the journal: references to what the server has
 * anyway, no copies and no redaction. Recording happens on every request, reading rarely, so the
 * work (redaction, parsing the body, formatting) is done on read, once per entry.
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
}

// Room for what an entry's JSON adds around the request's own bytes (names, status, time, quotes).
const ENTRY_OVERHEAD_BYTES = 512

export class Journal {
  readonly #size: number
  readonly #redactor: Redactor
  /**
   * Oldest first: a raw record until it is first read, then its entry. Slots before #first have
   * been dropped and are compacted away now and then; #sizes and #times (epoch milliseconds, for
   * `since`) run alongside.
   */
  #items: Array<RequestRecord | JournalEntry> = []
  #sizes: number[] = []
  #times: number[] = []
  #first = 0
  /** The id of the entry at #first: ids are consecutive. */
  #firstId = 1
  #bytes = 0

  constructor(size: number, redactor: Redactor) {
    this.#size = size
    this.#redactor = redactor
  }

  get length(): number {
    return this.#items.length - this.#first
  }

  record(record: RequestRecord): void {
    if (this.#size === 0) return
    // A copy of the part that will be shown (and one byte more, to tell it was cut), so the journal
    // never holds on to a whole megabyte-sized upload.
    const cut = record.body !== undefined && record.body.length > MAX_RECORDED_BODY
    const kept = cut
      ? { ...record, body: Buffer.from((record.body as Buffer).subarray(0, MAX_RECORDED_BODY + 1)) }
      : record
    const bytes =
      ENTRY_OVERHEAD_BYTES +
      kept.path.length +
      kept.search.length +
      headerBytes(kept.headers) +
      (kept.body?.length ?? 0)
    this.#items.push(kept)
    this.#sizes.push(bytes)
    this.#times.push(kept.time)
    this.#bytes += bytes
    // Bounded in count and in memory: the oldest entries are dropped first, the newest always kept.
    while (this.length > this.#size || (this.#bytes > MAX_JOURNAL_BYTES && this.length > 1)) {
      this.#bytes -= this.#sizes[this.#first] as number
      this.#first++
      this.#firstId++
    }
    if (this.#first > 1024 && this.#first * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#first)
      this.#sizes = this.#sizes.slice(this.#first)
      this.#times = this.#times.slice(this.#first)
      this.#first = 0
    }
  }

  /** Every entry matching the filter, oldest first. */
  find(filter: JournalFilter = {}): JournalEntry[] {
    const matches = this.#matcher(filter)
    const found: JournalEntry[] = []
    for (let i = this.#first; i < this.#items.length; i++) if (matches(i)) found.push(this.#entry(i))
    return found
  }

  /**
   * One page of the entries matching the filter, and their count. Only the page's entries are
   * made (redacted, their bodies parsed): counting the others costs the filter alone.
   */
  page(filter: JournalFilter, { limit, after = 0 }: JournalCursor): JournalPage {
    const matches = this.#matcher(filter)
    // Ids are consecutive: the slot of the first entry after `after` is known without a search.
    const start = this.#first + Math.max(0, after + 1 - this.#firstId)
    let count = 0
    for (let i = this.#first; i < start && i < this.#items.length; i++) if (matches(i)) count++
    const entries: JournalEntry[] = []
    let rest = 0
    for (let i = start; i < this.#items.length; i++) {
      if (!matches(i)) continue
      if (entries.length < limit) entries.push(this.#entry(i))
      else rest++
    }
    count += entries.length + rest
    return { count, entries, next: rest > 0 ? (entries.at(-1)?.id ?? null) : null }
  }

  /**
   * Whether the entry at slot i matches every filter given. The fields a raw record shares with
   * its entry are compared first; the path is compared as shown, redacted.
   */
  #matcher(filter: JournalFilter): (i: number) => boolean {
    const method = filter.method?.toUpperCase()
    const { path, operationId, status } = filter
    const prefix = path?.endsWith('*') ? path.slice(0, -1) : undefined
    const since = filter.since?.getTime()
    return (i) => {
      const item = this.#items[i] as RequestRecord | JournalEntry
      if (
        (method !== undefined && item.method !== method) ||
        (operationId !== undefined && item.operationId !== operationId) ||
        (status !== undefined && item.status !== status) ||
        (since !== undefined && (this.#times[i] as number) < since)
      )
        return false
      if (path === undefined) return true
      const shown = 'id' in item ? item.path : this.#redactor.text(item.path)
      return prefix === undefined ? shown === path : shown.startsWith(prefix)
    }
  }

  /** Empties the journal; returns how many entries were dropped. */
  clear(): number {
    const cleared = this.length
    this.#firstId += cleared
    this.#items = []
    this.#sizes = []
    this.#times = []
    this.#first = 0
    this.#bytes = 0
    return cleared
  }

  /** The entry at slot i as the control API shows it, redacted; made on first read, in place of the raw record. */
  #entry(i: number): JournalEntry {
    const item = this.#items[i] as RequestRecord | JournalEntry
    if ('id' in item) return item
    const redact = this.#redactor
    const entry: JournalEntry = {
      id: this.#firstId + (i - this.#first),
      time: new Date(item.time).toISOString(),
      namespace: item.namespace,
      method: item.method,
      path: redact.text(item.path),
      query: redact.query(item.search),
      headers: redact.headers(item.headers),
      body: redact.body(item.body),
      status: item.status,
      durationMs: item.durationMs,
      operationId: item.operationId,
      fault: item.fault,
      error: item.error === undefined ? null : { code: item.error.code, message: redact.text(item.error.message) },
    }
    this.#items[i] = entry
    return entry
  }
}

function headerBytes(headers: IncomingHttpHeaders): number {
  let bytes = 0
  for (const name in headers) {
    const value = headers[name]
    bytes +=
      name.length + 6 + (typeof value === 'string' ? value.length : Array.isArray(value) ? value.join(', ').length : 0)
  }
  return bytes
}

/** Removes secrets from what a request carried, before it is recorded anywhere. */
export class Redactor {
  readonly #secrets: readonly string[]
  readonly #keyFamily: RegExp | undefined

  /** `keyPrefix`: every token made of it and a namespace name is a key too (NAMESPACE_KEY_PREFIX). */
  constructor(secrets: readonly string[], keyPrefix?: string) {
    // Longest first, so a key that contains another is cut whole.
    this.#secrets = [...new Set(secrets)].filter((s) => s !== '').sort((a, b) => b.length - a.length)
    this.#keyFamily = keyPrefix
      ? new RegExp(`${keyPrefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[A-Za-z0-9_.-]+`, 'g')
      : undefined
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
      headers[name] =
        name === 'authorization' || name === 'proxy-authorization' ? redactCredentials(joined) : this.text(joined)
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
    // JSON.parse reads nesting of any depth, JSON.stringify throws past a few thousand levels; the
    // journal serialises every entry, so a body too deep to write back is recorded as its text.
    try {
      JSON.stringify(value)
    } catch {
      return text
    }
    return value
  }
}

/** Keeps the scheme (useful to verify), never the credentials. */
function redactCredentials(value: string): string {
  const scheme = /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value)?.[1]
  return scheme ? `${scheme} ${REDACTED}` : REDACTED
}
