// A create with an Idempotency-Key (draft-ietf-httpapi-idempotency-key-header), made once: a retry
// with the same key and body is answered the first create's pet again, never a second one.
import { ERRORS, HttpError } from '../http/errors.js'
import { requestHash, type IdempotencyKey } from '../store/idempotency-keys.js'
import type { NewPet, Pet } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'

/** The keys whose create is being served, by store: not yet durable, so not yet an answer to give again. */
const serving = new WeakMap<AnimalStore, Set<string>>()

/**
 * The pet the create with `key` made, `replayed`; or the one `add` makes now, when no create with
 * the key is kept (or it expired). The same key with another body is a 400; while a create with it
 * is being served, a 409. A create that fails stores nothing, and leaves the key free.
 */
export async function createOnce(
  store: AnimalStore,
  key: string,
  body: NewPet,
  now: number,
  add: (key: Omit<IdempotencyKey, 'id'>) => Promise<Pet>,
): Promise<{ pet: Pet; replayed: boolean }> {
  const keys = serving.get(store) ?? new Set<string>()
  if (keys.has(key))
    throw new HttpError(
      ERRORS.idempotencyKeyInUse,
      `A create with Idempotency-Key ${JSON.stringify(key)} is still being served: try again once it is answered`,
    )
  const hash = requestHash(body)
  const kept = store.idempotencyKeys.find(key, now)
  const pet = kept && store.get(kept.id)
  if (kept !== undefined && pet !== undefined) {
    if (kept.hash !== hash)
      throw new HttpError(
        ERRORS.idempotencyKeyReused,
        `Idempotency-Key ${JSON.stringify(key)} was sent with another body, which added pet ${pet.id}: a retry sends the same body, another create a new key`,
      )
    return { pet, replayed: true }
  }
  keys.add(key)
  serving.set(store, keys)
  try {
    return { pet: await add({ key, hash, at: now }), replayed: false }
  } finally {
    keys.delete(key)
  }
}
