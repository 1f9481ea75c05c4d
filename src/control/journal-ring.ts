// Where a journal keeps its requests: the numbers in typed arrays, the rest as bytes in a few large
// buffers, oldest dropped first. No object per request stays on the heap. A thousand kept requests
// as objects (and the strings they hold) outlive the young generation and are copied, then
// promoted, by every collection meanwhile: under load that took a third of the server's time
// (docs/performance.md). Bytes in a Buffer are outside the heap and cost the collector nothing.
import type { RequestRecord } from './request-journal.js'

/** A request as the ring keeps it: its headers as name and value pairs, its body already cut. */
export type StoredRequest = Omit<RequestRecord, 'headers' | 'body' | 'authenticated'> & {
  readonly headers: readonly string[]
  readonly body: Uint8Array | undefined
}

/**
 * Bytes are appended to chunks, the first small (most namespaces of a suite see a few requests),
 * each next one twice the last, up to the largest (a larger record gets a chunk of its own).
 */
const FIRST_CHUNK_BYTES = 4 * 1024
const LARGEST_CHUNK_BYTES = 256 * 1024
/** Slots for this many requests at first; doubled as needed, up to the journal's size. */
const FIRST_CAPACITY = 64
/** What one slot takes in the typed arrays below: three doubles and seven 32-bit integers. */
const SLOT_BYTES = 3 * 8 + 7 * 4

interface Chunk {
  readonly bytes: Buffer
  used: number
  /** Records in it not dropped yet. */
  live: number
}

/** The text part of a record: [namespace, path, search, fault, error code, error message, trace id, ...header pairs]. */
type Meta = [string, string, string, string | null, string | null, string | null, string | null, ...string[]]

export class JournalRing {
  readonly #size: number
  #capacity = 0
  /** The slot of the oldest record, and how many there are. */
  #head = 0
  #count = 0
  /** The journal's ids of the records: increasing, not always consecutive (a journal has two rings). */
  #ids: Float64Array = new Float64Array(0)
  #times: Float64Array = new Float64Array(0)
  #durations: Float64Array = new Float64Array(0)
  /** -1 for a request broken off without an answer. */
  #statuses: Int32Array = new Int32Array(0)
  /** Indexes into #strings. */
  #methods: Int32Array = new Int32Array(0)
  #operations: Int32Array = new Int32Array(0)
  /** Which chunk (its serial number), where in it, and how long its two parts are (-1: no body). */
  #chunks: Int32Array = new Int32Array(0)
  #offsets: Int32Array = new Int32Array(0)
  #metaLengths: Int32Array = new Int32Array(0)
  #bodyLengths: Int32Array = new Int32Array(0)
  /** The few strings every request repeats (methods, operationIds), each kept once. */
  readonly #strings: string[] = []
  readonly #codes = new Map<string, number>()
  #buffers: Chunk[] = []
  /** The serial number of #buffers[0]. */
  #firstChunk = 0
  /**
   * The last largest chunk emptied, filled again next: a busy journal then allocates nothing. A
   * dropped Buffer's memory comes back only when V8 collects its old generation, and under load
   * dropped chunks once held 50 MB outside the heap.
   */
  #spare: Chunk | undefined
  /** The bytes of every chunk held, the spare included. */
  #chunkBytes = 0

  readonly #maxBytes: number
  /** Chunks stop doubling here: a quarter of the byte bound at most, so that a new one never takes it all. */
  readonly #largestChunk: number

  /** `size`: at most this many records (JOURNAL_SIZE); `maxBytes`: the bound its journal keeps it to. */
  constructor(size: number, maxBytes: number) {
    this.#size = size
    this.#maxBytes = maxBytes
    this.#largestChunk = Math.max(FIRST_CHUNK_BYTES, Math.min(LARGEST_CHUNK_BYTES, Math.floor(maxBytes / 4)))
  }

  get length(): number {
    return this.#count
  }

  /** The bytes it holds, as allocated: its chunks (their unused ends included) and its slots. */
  get bytes(): number {
    return this.#chunkBytes + this.#capacity * SLOT_BYTES
  }

  /** The bytes the next push adds in slots: none while a slot is free. */
  get growthBytes(): number {
    return this.#count < this.#capacity ? 0 : (this.#nextCapacity() - this.#capacity) * SLOT_BYTES
  }

  /** The bytes the k-th oldest record takes in its chunk. */
  storedBytes(k: number): number {
    const slot = this.#slot(k)
    return (this.#metaLengths[slot] as number) + Math.max(0, this.#bodyLengths[slot] as number)
  }

  /** Appends the record the journal numbers `id`. */
  push(request: StoredRequest, id: number): void {
    if (this.#count === this.#capacity) this.#grow()
    const slot = (this.#head + this.#count) % this.#capacity
    const { error } = request
    const meta: Meta = [
      request.namespace,
      request.path,
      request.search,
      request.fault,
      error?.code ?? null,
      error?.message ?? null,
      request.traceId ?? null,
      ...request.headers,
    ]
    const text = JSON.stringify(meta)
    const metaLength = Buffer.byteLength(text)
    const bodyLength = request.body?.length ?? -1
    const chunk = this.#room(metaLength + Math.max(0, bodyLength))
    const offset = chunk.used
    chunk.bytes.write(text, offset)
    if (request.body !== undefined) chunk.bytes.set(request.body, offset + metaLength)
    chunk.used += metaLength + Math.max(0, bodyLength)
    chunk.live++
    this.#ids[slot] = id
    this.#times[slot] = request.time
    this.#durations[slot] = request.durationMs
    this.#statuses[slot] = request.status ?? -1
    this.#methods[slot] = this.#code(request.method)
    this.#operations[slot] = this.#code(request.operationId)
    this.#chunks[slot] = this.#firstChunk + this.#buffers.length - 1
    this.#offsets[slot] = offset
    this.#metaLengths[slot] = metaLength
    this.#bodyLengths[slot] = bodyLength
    this.#count++
  }

  /** Drops the oldest record; the last one takes every byte held with it. */
  dropOldest(): void {
    if (this.#count <= 1) {
      this.clear()
      return
    }
    const slot = this.#head
    const chunk = this.#buffers[(this.#chunks[slot] as number) - this.#firstChunk]
    if (chunk) chunk.live--
    this.#head = (this.#head + 1) % this.#capacity
    this.#count--
    // Whole chunks go once nothing in them is kept (the one being filled stays).
    while (this.#buffers.length > 1 && this.#buffers[0]?.live === 0) {
      const emptied = this.#buffers.shift() as Chunk
      this.#firstChunk++
      // Kept as the spare only within the byte bound: a drop to get back within it must free bytes.
      if (emptied.bytes.length === this.#largestChunk && this.#spare === undefined && this.bytes <= this.#maxBytes)
        this.#spare = emptied
      else this.#chunkBytes -= emptied.bytes.length
    }
  }

  /** Drops every record, and lets go of every byte held. */
  clear(): void {
    this.#head = 0
    this.#count = 0
    this.#buffers = []
    this.#firstChunk = 0
    this.#spare = undefined
    this.#chunkBytes = 0
    this.#capacity = 0
    this.#ids = new Float64Array(0)
    this.#times = new Float64Array(0)
    this.#durations = new Float64Array(0)
    this.#statuses = new Int32Array(0)
    this.#methods = new Int32Array(0)
    this.#operations = new Int32Array(0)
    this.#chunks = new Int32Array(0)
    this.#offsets = new Int32Array(0)
    this.#metaLengths = new Int32Array(0)
    this.#bodyLengths = new Int32Array(0)
  }

  // The k-th oldest record's fields, for filters: no bytes are read for these.
  id(k: number): number {
    return this.#ids[this.#slot(k)] as number
  }
  time(k: number): number {
    return this.#times[this.#slot(k)] as number
  }
  status(k: number): number | null {
    const status = this.#statuses[this.#slot(k)] as number
    return status < 0 ? null : status
  }
  method(k: number): string {
    return this.#strings[this.#methods[this.#slot(k)] as number] as string
  }
  operationId(k: number): string {
    return this.#strings[this.#operations[this.#slot(k)] as number] as string
  }

  /** The k-th oldest record, whole (read back from its bytes). */
  read(k: number): StoredRequest {
    const slot = this.#slot(k)
    const chunk = this.#buffers[(this.#chunks[slot] as number) - this.#firstChunk] as Chunk
    const offset = this.#offsets[slot] as number
    const metaLength = this.#metaLengths[slot] as number
    const bodyLength = this.#bodyLengths[slot] as number
    const [namespace, path, search, fault, code, message, traceId, ...headers] = JSON.parse(
      chunk.bytes.toString('utf8', offset, offset + metaLength),
    ) as Meta
    const start = offset + metaLength
    return {
      time: this.#times[slot] as number,
      namespace,
      method: this.method(k),
      path,
      search,
      headers,
      body: bodyLength < 0 ? undefined : Buffer.from(chunk.bytes.subarray(start, start + bodyLength)),
      status: this.status(k),
      durationMs: this.#durations[slot] as number,
      operationId: this.operationId(k),
      fault,
      error: code === null ? undefined : { code, message: message ?? '' },
      traceId: traceId ?? undefined,
    }
  }

  /** The code of a string every request repeats, or undefined when none was recorded yet. */
  codeOf(value: string): number | undefined {
    return this.#codes.get(value)
  }
  methodCode(k: number): number {
    return this.#methods[this.#slot(k)] as number
  }
  operationCode(k: number): number {
    return this.#operations[this.#slot(k)] as number
  }

  #slot(k: number): number {
    return (this.#head + k) % this.#capacity
  }

  #code(value: string): number {
    let code = this.#codes.get(value)
    if (code === undefined) {
      code = this.#strings.push(value) - 1
      this.#codes.set(value, code)
    }
    return code
  }

  /** A chunk with `bytes` free at its end: the last one, or a new one. */
  #room(bytes: number): Chunk {
    const last = this.#buffers.at(-1)
    if (last && last.bytes.length - last.used >= bytes) return last
    const size = last === undefined ? FIRST_CHUNK_BYTES : Math.min(this.#largestChunk, last.bytes.length * 2)
    let chunk: Chunk
    if (this.#spare !== undefined && size === this.#largestChunk && bytes <= this.#largestChunk) {
      chunk = this.#spare
      chunk.used = 0
      chunk.live = 0
      this.#spare = undefined
    } else {
      chunk = { bytes: Buffer.allocUnsafeSlow(Math.max(size, bytes)), used: 0, live: 0 }
      this.#chunkBytes += chunk.bytes.length
    }
    this.#buffers.push(chunk)
    return chunk
  }

  /** More slots (twice as many, up to the journal's size), the records kept oldest first from slot 0. */
  #nextCapacity(): number {
    return Math.min(this.#size, Math.max(FIRST_CAPACITY, this.#capacity * 2))
  }

  #grow(): void {
    const capacity = this.#nextCapacity()
    const order = Array.from({ length: this.#count }, (_, k) => this.#slot(k))
    const floats = (from: Float64Array): Float64Array => {
      const to = new Float64Array(capacity)
      order.forEach((slot, k) => (to[k] = from[slot] as number))
      return to
    }
    const ints = (from: Int32Array): Int32Array => {
      const to = new Int32Array(capacity)
      order.forEach((slot, k) => (to[k] = from[slot] as number))
      return to
    }
    this.#ids = floats(this.#ids)
    this.#times = floats(this.#times)
    this.#durations = floats(this.#durations)
    this.#statuses = ints(this.#statuses)
    this.#methods = ints(this.#methods)
    this.#operations = ints(this.#operations)
    this.#chunks = ints(this.#chunks)
    this.#offsets = ints(this.#offsets)
    this.#metaLengths = ints(this.#metaLengths)
    this.#bodyLengths = ints(this.#bodyLengths)
    this.#capacity = capacity
    this.#head = 0
  }
}
