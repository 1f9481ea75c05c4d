import type { FileSystem } from './file-system.js'

/** When a data file's append log is folded into a new image. */
export interface Compaction {
  /**
   * Under load, when the append log holds this many records (or as many as the image if that is more
   * and `growWithImage`): it bounds the append log a start after a crash has to read.
   */
  readonly afterRecords: number
  readonly growWithImage: boolean
  /**
   * Before that, once the file was idle for `idleMs` with this many records in the append log: a
   * rewrite of the whole store never holds up a busy test run's creates.
   */
  readonly idleAfterRecords: number
  readonly idleMs: number
  /** Free space a fold must leave beside its new image; with less, the append log just grows. */
  readonly headroomBytes: number
}

export const COMPACTION: Compaction = {
  afterRecords: 100_000,
  growWithImage: true,
  idleAfterRecords: 1_000,
  idleMs: 500,
  headroomBytes: 1024 * 1024,
  ...compactionForTests(process.env['ANIMAL_STORE_TEST_COMPACT_EVERY']),
}

/** For tests (docs/reliability.md): ANIMAL_STORE_TEST_COMPACT_EVERY=n folds every n records, so that kills land in folds. */
function compactionForTests(every: string | undefined): Partial<Compaction> {
  const records = Number(every)
  if (every === undefined || !Number.isSafeInteger(records) || records < 1) return {}
  return { afterRecords: records, growWithImage: false, idleAfterRecords: records }
}

/** When one append log is folded: after so many records under load, or once idle. */
export class FoldPolicy {
  readonly #settings: Compaction
  #imageRecords = 0
  #at: number
  #timer: NodeJS.Timeout | undefined
  #stopped = false

  constructor(settings: Partial<Compaction> = {}) {
    this.#settings = { ...COMPACTION, ...settings }
    this.#at = this.#every()
  }

  /** A new image, of `records`, took the append log over. */
  imaged(records: number): void {
    this.#imageRecords = records
    this.#at = this.#every()
  }

  /** Whether an append log of `records` is folded now (`asked`: by a compact). */
  due(records: number, asked: boolean): boolean {
    return records > 0 && (asked || records >= this.#at)
  }

  /** A fold found no room or failed: the next try waits for as many records again. */
  postpone(records: number): void {
    this.#at = records + this.#every()
  }

  /** Whether the file system has room for a new image of about `bytes` beside the old one. */
  async roomFor(fs: FileSystem, directory: string, bytes: number): Promise<boolean> {
    const free = await fs.freeBytes(directory).catch(() => 0)
    return free >= bytes + this.#settings.headroomBytes
  }

  /** Calls `fold` once no write came for a moment (the timer never keeps the process alive). */
  whenIdle(records: number, fold: () => void): void {
    if (this.#stopped || records < this.#settings.idleAfterRecords) return
    clearTimeout(this.#timer)
    this.#timer = setTimeout(fold, this.#settings.idleMs).unref()
  }

  /** No fold on a timer from now on (the store is being removed), until resume(). */
  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
  }

  resume(): void {
    this.#stopped = false
  }

  #every(): number {
    const { afterRecords, growWithImage } = this.#settings
    return growWithImage ? Math.max(afterRecords, this.#imageRecords) : afterRecords
  }
}
