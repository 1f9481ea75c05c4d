// What the journals may hold of the process's memory, in bytes: each namespace's journal at most
// JOURNAL_BYTES, all of them together at most JOURNAL_TOTAL_BYTES. A client decides what the
// journals receive (bodies up to 64 KiB each, in as many namespaces as MAX_NAMESPACES allows), so
// the bytes they hold are bounded whatever it sends. Past the total, the journals recorded to
// least recently give up their oldest entries first: a namespace a test is using now keeps its own.

/** The bounds on the journals, as the settings give them. */
export interface JournalLimits {
  /** Requests each namespace's journal keeps (JOURNAL_SIZE). */
  readonly requests: number
  /** Bytes each namespace's journal holds (JOURNAL_BYTES). */
  readonly bytes: number
  /** Bytes all journals hold together (JOURNAL_TOTAL_BYTES). */
  readonly totalBytes: number
}

export const DEFAULT_JOURNAL_LIMITS: JournalLimits = {
  requests: 1000,
  bytes: 4 * 1024 * 1024,
  totalBytes: 64 * 1024 * 1024,
}

/** A journal as the shared bound sees it. */
export interface BoundedJournal {
  /** Bytes its entries take, counted from their strings and bodies (request-journal.ts). */
  readonly bytes: number
  readonly length: number
  /** Drops its oldest entry. */
  shed(): void
}

/**
 * An entry shown (read back, redacted, its body parsed) is kept for the next read of it, as tests
 * read the same entries again: at most this many, across every journal, and only small ones. What
 * an entry takes on the heap is not known in bytes; bounding the count and the size bounds it.
 */
const SHOWN_ENTRIES = 1000
const SHOWN_ENTRY_BYTES = 2 * 1024

export class JournalMemory {
  readonly limits: JournalLimits
  #bytes = 0
  /** The journals holding bytes, least recently recorded to first. */
  readonly #holders = new Set<BoundedJournal>()
  /** Entries shown lately, least recently shown first, by their journal's serial and id. */
  readonly #shown = new Map<string, unknown>()
  #serials = 0
  #arrivals = 0
  /** Told of each request a journal records, while someone waits for one (journal-waits.ts); unset otherwise. */
  onRecord: ((namespace: string) => void) | undefined = undefined

  constructor(limits: JournalLimits = DEFAULT_JOURNAL_LIMITS) {
    this.limits = limits
  }

  /** Bytes all journals hold now. */
  get bytes(): number {
    return this.#bytes
  }

  /** A number of its own for each journal, for the shown entries' keys. */
  serial(): number {
    return ++this.#serials
  }

  /** The next place in the order all journals received their entries: calls in one millisecond stay in order. */
  arrival(): number {
    return ++this.#arrivals
  }

  /** A journal's bytes changed by `delta`, to `bytes`. */
  changed(journal: BoundedJournal, delta: number): void {
    this.#bytes += delta
    if (journal.bytes === 0) this.#holders.delete(journal)
  }

  /**
   * `journal` has just recorded: it becomes the most recently recorded to, and while all journals
   * hold more than the total, the least recently recorded to give up their oldest entries (the
   * newest entry of `journal` always stays).
   */
  recorded(journal: BoundedJournal): void {
    this.#holders.delete(journal)
    if (journal.bytes > 0) this.#holders.add(journal)
    while (this.#bytes > this.limits.totalBytes) {
      const oldest = this.#holders.values().next().value
      if (oldest === undefined || (oldest === journal && journal.length <= 1)) return
      oldest.shed()
    }
  }

  /** An entry shown before, if it is still kept. */
  shown<T>(serial: number, id: number): T | undefined {
    const key = `${serial}:${id}`
    const entry = this.#shown.get(key)
    if (entry === undefined) return undefined
    this.#shown.delete(key)
    this.#shown.set(key, entry)
    return entry as T
  }

  /** Keeps an entry just shown, when it is small: `storedBytes` is what its journal holds of it. */
  remember(serial: number, id: number, entry: unknown, storedBytes: number): void {
    if (storedBytes > SHOWN_ENTRY_BYTES) return
    this.#shown.set(`${serial}:${id}`, entry)
    if (this.#shown.size > SHOWN_ENTRIES) this.#shown.delete(this.#shown.keys().next().value as string)
  }
}
