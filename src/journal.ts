// The journal: what each namespace received, for tests to verify what their client sent. It is
// bounded (JOURNAL_SIZE entries per namespace, the oldest dropped first) and never holds a secret:
// Authorization is redacted, and any configured key or token is cut out of every recorded string.

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

export class Journal {
  readonly #size: number
  #entries: JournalEntry[] = []
  #sizes: number[] = []
  #bytes = 0
  #nextId = 1

  constructor(size: number) {
    this.#size = size
  }

  get length(): number {
    return this.#entries.length
  }

  record(entry: Omit<JournalEntry, 'id'>): void {
    if (this.#size === 0) return
    const bytes = JSON.stringify(entry).length
    this.#entries.push({ id: this.#nextId++, ...entry })
    this.#sizes.push(bytes)
    this.#bytes += bytes
    // Bounded in count and in memory: the oldest entries are dropped first.
    let drop = Math.max(0, this.#entries.length - this.#size)
    let bytesLeft = this.#bytes - this.#sizes.slice(0, drop).reduce((sum, n) => sum + n, 0)
    while (bytesLeft > MAX_JOURNAL_BYTES && drop < this.#entries.length - 1) bytesLeft -= this.#sizes[drop++] ?? 0
    if (drop > 0) {
      this.#entries.splice(0, drop)
      this.#sizes.splice(0, drop)
      this.#bytes = bytesLeft
    }
  }

  /** Entries matching every filter given, oldest first. */
  find(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase()
    const prefix = filter.path?.endsWith('*') ? filter.path.slice(0, -1) : undefined
    const since = filter.since?.getTime()
    return this.#entries.filter(
      (e) =>
        (method === undefined || e.method === method) &&
        (filter.path === undefined || (prefix === undefined ? e.path === filter.path : e.path.startsWith(prefix))) &&
        (filter.operationId === undefined || e.operationId === filter.operationId) &&
        (filter.status === undefined || e.status === filter.status) &&
        (since === undefined || Date.parse(e.time) >= since),
    )
  }

  /** Empties the journal; returns how many entries were dropped. */
  clear(): number {
    const cleared = this.#entries.length
    this.#entries = []
    this.#sizes = []
    this.#bytes = 0
    return cleared
  }
}

/** Removes secrets from what a request carried, before it is recorded anywhere. */
export class Redactor {
  readonly #secrets: readonly string[]
  readonly #keyFamily: RegExp | undefined

  /** `keyPrefix`: every token made of it and a namespace name is a key too (NAMESPACE_KEY_PREFIX). */
  constructor(secrets: readonly string[], keyPrefix?: string) {
    // Longest first, so a key that contains another is cut whole.
    this.#secrets = [...new Set(secrets)].filter((s) => s !== '').sort((a, b) => b.length - a.length)
    this.#keyFamily = keyPrefix ? new RegExp(`${keyPrefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[A-Za-z0-9_.-]+`, 'g') : undefined
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
      headers[name] = name === 'authorization' || name === 'proxy-authorization' ? redactCredentials(joined) : this.text(joined)
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
