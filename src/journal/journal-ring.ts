// One kind of a journal's entries (with a valid API key, or without), in a bounded ring.
import type { RequestRecord } from './request-record.js'

export interface Kept {
  readonly id: number
  readonly record: RequestRecord
  readonly bytes: number
  /** Its place among the entries of every journal sharing its memory (JournalMemory.arrival). */
  readonly arrival: number
}

/** The latest requests of one kind, within a count and a number of bytes; the newest always kept. */
export class Ring {
  readonly size: number
  readonly #maxBytes: number
  readonly #dropped: () => void
  #kept: Kept[] = []
  #head = 0
  bytes = 0

  constructor(size: number, maxBytes: number, dropped: () => void) {
    this.size = size
    this.#maxBytes = maxBytes
    this.#dropped = dropped
  }

  get length(): number {
    return this.#kept.length - this.#head
  }

  get oldest(): Kept | undefined {
    return this.#kept[this.#head]
  }

  list(): Kept[] {
    return this.#kept.slice(this.#head)
  }

  /** The entries with an id above `id`, oldest first: walked from the newest, as few as there are. */
  after(id: number): Kept[] {
    let from = this.#kept.length
    while (from > this.#head && (this.#kept[from - 1]?.id ?? 0) > id) from--
    return this.#kept.slice(from)
  }

  push(kept: Kept): void {
    this.#kept.push(kept)
    this.bytes += kept.bytes
    while (this.length > this.size || (this.bytes > this.#maxBytes && this.length > 1)) this.dropOldest()
  }

  dropOldest(): void {
    const oldest = this.oldest
    if (oldest === undefined) return
    this.bytes -= oldest.bytes
    this.#head++
    // Copied down once half of it is gone: each drop costs O(1), amortised.
    if (this.#head * 2 >= this.#kept.length) [this.#kept, this.#head] = [this.#kept.slice(this.#head), 0]
    this.#dropped()
  }

  clear(): void {
    ;[this.#kept, this.#head, this.bytes] = [[], 0, 0]
  }
}
