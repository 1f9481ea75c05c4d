// The sandbox's notion of now, which a test can move (POST /__admin/clock or CLOCK) to rehearse
// dates such as the getPet sunset. A moved clock keeps running at the real pace.
export class Clock {
  readonly #initial: Date | undefined
  /** Milliseconds between the sandbox's now and the real now; undefined for real time. */
  #offset: number | undefined
  /** Set or cleared since it started, or was last reset: a test moved it. */
  #moved = false

  /** `initial` is the CLOCK setting: where the clock starts, and where a reset puts it back. */
  constructor(initial?: Date) {
    this.#initial = initial
    this.reset()
  }

  now(): Date {
    return new Date(this.nowMs())
  }

  /** now() in epoch milliseconds, without a Date to allocate: the sunset check runs on every getPet. */
  nowMs(): number {
    return Date.now() + (this.#offset ?? 0)
  }

  get real(): boolean {
    return this.#offset === undefined
  }

  /** Whether a test moved it (set it, or back to real time from CLOCK) since its start or last reset. */
  get moved(): boolean {
    return this.#moved
  }

  set(now: Date): void {
    this.#offset = now.getTime() - Date.now()
    this.#moved = true
  }

  /** Back to real time. */
  clear(): void {
    this.#offset = undefined
    this.#moved = this.#initial !== undefined
  }

  /** Back to the configured start (real time when none was configured). */
  reset(): void {
    if (this.#initial === undefined) this.clear()
    else this.set(this.#initial)
    this.#moved = false
  }

  toJSON(): { now: string; real: boolean } {
    return { now: this.now().toISOString(), real: this.real }
  }
}
