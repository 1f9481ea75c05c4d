// A batch of an owner's changes in one namespace, committed in one transaction (batches.ts): the
// row takes its last state only, and its answers wait for it when one of its changes is durable;
// a batch of reads alone gathers first (GATHER_MS).
import { STEPS_WITHIN_MS } from './deadline.js'
import type { Taken } from './changes.js'

export interface Queued {
  /** Its change; without its state once a later change of the batch brings one (only the last is written). */
  taken: Taken
  /** Entries up to this id were journaled by the hold for others (not the request's own answer). */
  readonly mark: number
  /** Whether the request's answer went out: then every entry of the change is its namespace's to keep. */
  answered: boolean
}

export class Batch {
  readonly queued: Queued[] = []
  /** The queued change that holds the batch's latest state. */
  stated: Queued | undefined
  durable = false
  /** When its steps with the database must end, for the first request whose answer waits for it (none: no answer does). */
  due: number | undefined
  /** Whether it may have committed though its requests are answered that it failed. */
  unknown = false
  settle!: (failure?: unknown) => void
  readonly done = new Promise<void>((resolve, reject) => {
    this.settle = (failure) => (failure === undefined ? resolve() : reject(failure))
  })

  constructor() {
    this.done.catch(() => undefined)
  }

  /**
   * Queues `taken`, of a request that came at `came`. The row takes a batch's last state only: the
   * one before it is let go, and counted with it.
   */
  push(taken: Taken, mark: number, came: number): Queued {
    const stated = this.stated
    if (taken.change.state !== undefined && stated !== undefined) {
      const before = stated.taken.change
      stated.taken = { ...stated.taken, change: { ...before, state: undefined, states: 0 } }
      taken = { ...taken, change: { ...taken.change, states: taken.change.states + before.states } }
    }
    const queued: Queued = { taken, mark, answered: false }
    this.queued.push(queued)
    if (taken.change.state !== undefined) this.stated = queued
    this.durable ||= taken.change.durable
    // A durable change's answer waits for the batch (a read's waits only for one it saw, due before it).
    if (taken.change.durable) this.due = Math.min(this.due ?? Infinity, came + STEPS_WITHIN_MS)
    return queued
  }
}

/**
 * How long a batch of reads alone waits for more to join it; a durable change ends the wait. A batch
 * costs a transaction whatever it holds (two round trips, the database's work for a commit), so a
 * namespace read a few times a second commits its reads' entries together, not one by one.
 */
export const GATHER_MS = 250

/** The replica's committers whose next batch is gathering, and whether the replica stops (none gathers then). */
export class Gathering {
  readonly committers = new Set<{ hurry(): void }>()
  stopping = false
}
