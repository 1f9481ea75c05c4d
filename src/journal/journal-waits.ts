// Who waits for requests (POST /__admin/requests/await), within bounds, and the wake-up each gets
// as its namespace's journal records a request. While nobody waits, the journals tell no one
// (JournalMemory.onRecord is unset): the request path pays nothing for waits it does not have.
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import type { JournalMemory } from './journal-memory.js'

/** Waits open at once in one namespace, and in all: each holds a connection, and on a shared database polls it. */
export const MAX_WAITS_PER_NAMESPACE = 16
export const MAX_WAITS = 64

export class JournalWaits {
  readonly #memory: JournalMemory
  /** The wake-ups of each namespace's waits. */
  readonly #waiting = new Map<string, Set<() => void>>()
  #count = 0

  constructor(memory: JournalMemory) {
    this.#memory = memory
  }

  /** Waits open now. */
  get count(): number {
    return this.#count
  }

  /**
   * Opens a wait: `wake` is called, within the recording, after each request the namespace's
   * journal records. Gives the function that closes it; a 429 past the bounds.
   */
  open(namespace: string, wake: () => void): () => void {
    const own = this.#waiting.get(namespace) ?? new Set()
    if (own.size >= MAX_WAITS_PER_NAMESPACE)
      throw tooMany(
        `Namespace ${JSON.stringify(namespace)} has ${MAX_WAITS_PER_NAMESPACE} waits open, the most it keeps: end one, then try again`,
      )
    if (this.#count >= MAX_WAITS)
      throw tooMany(`${MAX_WAITS} waits are open, the most the sandbox keeps: end one, then try again`)
    this.#waiting.set(namespace, own.add(wake))
    this.#count++
    this.#memory.onRecord ??= (name) => this.#recorded(name)
    let open = true
    return () => {
      if (!open) return
      open = false
      own.delete(wake)
      if (own.size === 0) this.#waiting.delete(namespace)
      if (--this.#count === 0) this.#memory.onRecord = undefined
    }
  }

  #recorded(namespace: string): void {
    const own = this.#waiting.get(namespace)
    if (own !== undefined) for (const wake of own) wake()
  }
}

const registries = new WeakMap<JournalMemory, JournalWaits>()

/** The waits on the journals that share `memory`: one sandbox's. */
export function waitsOn(memory: JournalMemory): JournalWaits {
  let waits = registries.get(memory)
  if (waits === undefined) registries.set(memory, (waits = new JournalWaits(memory)))
  return waits
}

function tooMany(message: string): HttpError {
  return new HttpError(ERRORS.tooManyWaits, message, RETRY_AFTER)
}
