// The Idempotency-Key of each create that sent one, kept with the pet it made: a retry with the
// key finds that pet instead of adding another. Kept where the pet is kept, in the same write (an
// append-log line, a database transaction), and cleared with the pets (a reset, a replace).
//
// Bounded: a namespace keeps the MAX_KEYS latest, and a key older than KEY_TTL_MS by the
// namespace's clock is no longer found. Both are decided from what is stored (ids and times), so
// a restart or another replica finds the same keys.
import { createHash } from 'node:crypto'
import type { NewPet, Pet } from './pets.js'

/** How many keys a namespace keeps: beyond, its oldest is forgotten. */
export const MAX_KEYS = 10_000
/** How long a key is found after its create, by the namespace's clock (Stripe keeps keys 24 hours). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000

/** A create's key as it is stored: the key, its request's hash, the pet it made, and when. */
export interface IdempotencyKey {
  readonly key: string
  /** requestHash() of the create's body. */
  readonly hash: string
  /** The id of the pet the create made. */
  readonly id: number
  /** When, in ms since 1970 by the namespace's clock. */
  readonly at: number
}

/**
 * The hash a retry's body is compared by: the NewPet fields a create keeps, in one order (unknown
 * properties are ignored by the create, and here). A status left out is not the same as one sent.
 */
export function requestHash({ name, categoryId, status }: NewPet): string {
  return createHash('sha256')
    .update(JSON.stringify([name, categoryId, status ?? null]))
    .digest('base64url')
}

/** A store's keys, oldest first; JSON as an array of IdempotencyKey (a data file's image member). */
export class IdempotencyKeys {
  readonly #byKey = new Map<string, IdempotencyKey>()
  readonly #byId = new Map<number, IdempotencyKey>()

  /** Keys as read back (an image, the database), or undefined for none; throws for what is not a key. */
  static from(value: unknown): IdempotencyKeys {
    if (value instanceof IdempotencyKeys) return value
    const keys = new IdempotencyKeys()
    if (value === undefined || value === null) return keys
    if (!Array.isArray(value)) throw new Error('"idempotencyKeys" is not an array')
    for (const [index, entry] of value.entries()) {
      if (!isKey(entry)) throw new Error(`"idempotencyKeys" has an invalid key at index ${index}`)
      keys.add(entry)
    }
    return keys
  }

  get size(): number {
    return this.#byKey.size
  }

  /** The key's entry while it is kept and younger than KEY_TTL_MS at `now`. */
  find(key: string, now: number): IdempotencyKey | undefined {
    const entry = this.#byKey.get(key)
    return entry === undefined || now - entry.at >= KEY_TTL_MS ? undefined : entry
  }

  /** The key of the create that made pet `id`, if it sent one and it is kept. */
  ofPet(id: number): IdempotencyKey | undefined {
    return this.#byId.get(id)
  }

  /** Adds a create's key (in id order); one used again, after it expired, names the newer pet. */
  add(entry: IdempotencyKey): void {
    this.remove(this.#byKey.get(entry.key))
    this.#byKey.set(entry.key, entry)
    this.#byId.set(entry.id, entry)
    for (const oldest of this.#byKey.values()) {
      if (this.#byKey.size <= MAX_KEYS) break
      this.remove(oldest)
    }
  }

  /** Takes an entry out (its create was not stored). */
  remove(entry: IdempotencyKey | undefined): void {
    if (entry === undefined || this.#byKey.get(entry.key) !== entry) return
    this.#byKey.delete(entry.key)
    this.#byId.delete(entry.id)
  }

  /** Forgets every key (a reset). */
  clear(): void {
    this.#byKey.clear()
    this.#byId.clear()
  }

  /** The keys but `left` out (an image written before their creates are durable). */
  without(left: ReadonlySet<unknown>): IdempotencyKey[] {
    return [...this.#byKey.values()].filter((entry) => !left.has(entry))
  }

  toJSON(): IdempotencyKey[] {
    return [...this.#byKey.values()]
  }
}

function isKey(value: unknown): value is IdempotencyKey {
  const entry = value as Partial<IdempotencyKey> | null
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.key === 'string' &&
    typeof entry.hash === 'string' &&
    Number.isSafeInteger(entry.id) &&
    Number.isFinite(entry.at)
  )
}

/** An append-log line of a create that sent a key: the pet and its key, durable together. */
export interface KeyedCreate {
  readonly pet: Pet
  readonly idempotencyKey: IdempotencyKey
}

export function isKeyedCreate(record: unknown): record is KeyedCreate {
  return typeof record === 'object' && record !== null && 'idempotencyKey' in record && 'pet' in record
}
