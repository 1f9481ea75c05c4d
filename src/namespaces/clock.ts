// The sandbox's notion of now, which a test can move (POST /__admin/clock or CLOCK) to rehearse
// dates such as the getPet sunset. A moved clock keeps running at the real pace.
import { isDateTime } from '../contract/formats.js'
import { fail } from '../setting-readers.js'

/** The instants RFC 3339 can write (years 0000 to 9999): the clock's range, in epoch ms. */
export const EARLIEST = Date.parse('0000-01-01T00:00:00.000Z')
export const LATEST = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * A date-time a test gives the clock (CLOCK, POST /__admin/clock, the journal's `since`), or why
 * it cannot be one. RFC 3339 allows a leap second (23:59:60), which epoch milliseconds, like POSIX
 * time, cannot represent: it is refused rather than moved a second either way without a word.
 */
export function readDateTime(text: string): { date: Date; problem?: undefined } | { problem: string } {
  const quoted = JSON.stringify(text.slice(0, 80))
  if (!isDateTime(text)) return { problem: `must be an RFC 3339 date-time such as 2030-12-05T00:00:00Z, got ${quoted}` }
  if (/[Tt\s]\d\d:\d\d:60/.test(text))
    return {
      problem: `is a leap second, which the sandbox's clock cannot represent (as POSIX time cannot): use :59 or the next minute's :00, got ${quoted}`,
    }
  const ms = Date.parse(text)
  if (!(ms >= EARLIEST && ms <= LATEST))
    return {
      problem: `must fall in 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (RFC 3339 writes years of four digits), got ${quoted}`,
    }
  return { date: new Date(ms) }
}

/** The CLOCK setting's reader. */
export const dateTimeSetting = (value: string, name: string): Date => {
  const time = readDateTime(value)
  return time.problem === undefined ? time.date : fail(`${name} ${time.problem}`)
}

export class Clock {
  readonly #initial: Date | undefined
  /** Milliseconds between the sandbox's now and the real now; undefined for real time. */
  #offset: number | undefined
  /** Set, or back to real time, since it started: a test moved it. */
  #moved = false

  /** `initial` is the CLOCK setting: where the clock starts, and where a reset puts it back. */
  constructor(initial?: Date) {
    this.#initial = initial
    this.toStart()
  }

  now(): Date {
    return new Date(this.nowMs())
  }

  /**
   * now() in epoch milliseconds, without a Date to allocate: the sunset check runs on every getPet.
   * A clock set near the end of year 9999 stops there, where RFC 3339 can still write it.
   */
  nowMs(): number {
    return this.#offset === undefined ? Date.now() : Math.min(LATEST, Date.now() + this.#offset)
  }

  get real(): boolean {
    return this.#offset === undefined
  }

  /** Whether a test moved it (set it, or back to real time from CLOCK) since its start or last reset. */
  get moved(): boolean {
    return this.#moved
  }

  /** `now` must be in range (readDateTime): an instant the clock could not write back is a bug. */
  set(now: Date): void {
    const ms = now.getTime()
    if (!(ms >= EARLIEST && ms <= LATEST)) throw new RangeError(`Clock: ${String(now)} is outside its range`)
    this.#offset = ms - Date.now()
    this.#moved = true
  }

  /** Starts it at `now` (real time for null), which does not count as a move: a namespace's baseline. */
  startAt(now: Date | null): void {
    if (now === null) this.#offset = undefined
    else this.set(now)
    this.#moved = false
  }

  /** Back to real time (the control API's resetClock). */
  toRealTime(): void {
    this.#offset = undefined
    this.#moved = this.#initial !== undefined
  }

  /** Back to the configured start, CLOCK (real time when none was configured): a namespace's reset. */
  toStart(): void {
    if (this.#initial === undefined) this.toRealTime()
    else this.set(this.#initial)
    this.#moved = false
  }

  /** What a shared database keeps of it: the offset from real time is the same on every replica. */
  dump(): { offset: number | null; moved: boolean } {
    return { offset: this.#offset ?? null, moved: this.#moved }
  }

  restore({ offset, moved }: { offset: number | null; moved: boolean }): void {
    this.#offset = offset ?? undefined
    this.#moved = moved
  }

  toJSON(): { now: string; real: boolean } {
    return { now: this.now().toISOString(), real: this.real }
  }
}
