// One namespace: its store (opened on first use), journal, faults and clock.
import type { Baseline } from '../store/baseline.js'
import type { AnimalStore } from '../store/store.js'
import { Clock } from './clock.js'
import { Faults } from './faults.js'
import type { Journal } from '../journal/request-journal.js'

export class Namespace {
  readonly name: string
  readonly journal: Journal
  readonly faults = new Faults()
  readonly clock: Clock
  readonly #store: () => Promise<AnimalStore>
  #opened: AnimalStore | undefined
  /** Its files were on disk when it was made live. */
  readonly #fromDisk: boolean
  /** Requests being served in it: a create among them may not have reached its store yet. */
  #serving = 0
  /** The data it starts from, and comes back from after an eviction. */
  readonly #baseline: Baseline

  constructor(
    name: string,
    journal: Journal,
    clock: Date | undefined,
    store: () => Promise<AnimalStore>,
    baseline: Baseline,
    { opened, fromDisk = false }: { opened?: AnimalStore; fromDisk?: boolean } = {},
  ) {
    this.name = name
    this.journal = journal
    this.clock = new Clock(clock)
    this.#store = store
    this.#opened = opened
    this.#fromDisk = fromDisk
    this.#baseline = baseline
  }

  /** A request is being served in it: it is not evicted meanwhile. Each call is paired with end(). */
  begin(): void {
    this.#serving++
  }

  end(): void {
    this.#serving--
  }

  get busy(): boolean {
    return this.#serving > 0
  }

  /** The data it starts from, and comes back from after an eviction. */
  get baseline(): Baseline {
    return this.#baseline
  }

  /**
   * Whether it holds something a test gave it, which an eviction would lose: pets other than its
   * baseline's, a fault, a moved clock (not its journal). One not open yet: whatever is on disk.
   */
  holdsData(): boolean {
    if (this.faults.length > 0 || this.clock.moved) return true
    return this.#opened === undefined ? this.#fromDisk : !this.#opened.holdsOnly(this.#baseline)
  }

  /** The store itself once it is open: a request then need not wait a turn for it. */
  store(): AnimalStore | Promise<AnimalStore> {
    return (
      this.#opened ??
      this.#store().then((store) => {
        this.#opened = store
        return store
      })
    )
  }
}

/** A reset named a snapshot that does not exist (or is being deleted). */
export class UnknownSnapshot extends Error {
  readonly snapshot: string
  constructor(snapshot: string) {
    super(`No snapshot ${JSON.stringify(snapshot)}`)
    this.snapshot = snapshot
  }
}
