// One function per operationId of the spec. A handler gets input that validation has already
// checked against the spec, calls the store, and returns what to send; it never touches `res`.
import type { operations } from '../contract/api-types.js'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { SerializedJson } from '../http/reply.js'
import type { HandlersOf } from '../pipeline/pipeline.js'
import { nameProblem, StoreFull } from '../store/limits.js'
import { StorageError } from '../store/errors.js'
import type { NewPet, Pet, PetStatus } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import type { IdempotencyKey } from '../store/idempotency-keys.js'
import { createOnce } from './idempotency.js'

export interface HandlerContext {
  readonly store: AnimalStore
  /** The base path the API is served under, e.g. /v1. */
  readonly basePath: string
  /** Now by the namespace's clock, in ms since 1970. */
  readonly now: () => number
}

// Serialised list pages of each store, reused until the store changes: test suites list far
// more often than they write, and serialising a page is most of what a list costs.
const pageCache = new WeakMap<AnimalStore, { version: number; pages: Map<string, SerializedJson> }>()

function listPage(store: AnimalStore, status: PetStatus | undefined, limit: number | undefined): SerializedJson {
  let cache = pageCache.get(store)
  if (cache?.version !== store.version) {
    cache = { version: store.version, pages: new Map() }
    pageCache.set(store, cache)
  }
  const key = `${status ?? ''}:${limit}`
  let page = cache.pages.get(key)
  if (page === undefined) {
    page = new SerializedJson(store.list({ status, limit }))
    cache.pages.set(key, page)
  }
  return page
}

// A pet never changes once stored (the API has no update), so its JSON can be kept with it.
const serializedPets = new WeakMap<Pet, SerializedJson>()

function petJson(pet: Pet): SerializedJson {
  let json = serializedPets.get(pet)
  if (json === undefined) serializedPets.set(pet, (json = new SerializedJson(pet)))
  return json
}

/** Adds a pet (with its create's Idempotency-Key); a store that refuses it answers why nothing was stored. */
async function added(store: AnimalStore, body: NewPet, key?: Omit<IdempotencyKey, 'id'>): Promise<Pet> {
  try {
    return await store.add(body, key)
  } catch (error) {
    if (error instanceof StorageError)
      throw new HttpError(ERRORS.storageUnavailable, `Nothing was stored: ${error.message}`, RETRY_AFTER)
    if (error instanceof StoreFull) throw new HttpError(ERRORS.storeFull, `Nothing was stored: ${error.message}`)
    throw error
  }
}

/** Operations the interface names without specifying them: answered 501, or by UPSTREAM when set. */
export const UNIMPLEMENTED: ReadonlySet<string> = new Set(['listOrders'])

export const handlers: HandlersOf<operations, HandlerContext> = {
  listPets({ query }, { store }) {
    // limit defaults to 20 through the spec's `default`, applied by validation.
    return { status: 200, body: listPage(store, query.status, query.limit) }
  },

  async createPet({ header, body }, { store, basePath, now }) {
    // Unknown properties and a client-sent id are ignored: the store picks the NewPet fields.
    const tooLong = nameProblem(body.name, 'body.name')
    if (tooLong) throw new HttpError(ERRORS.invalidBody, `Invalid request body: ${tooLong}`)
    const key = header['Idempotency-Key']
    const add = (idempotencyKey?: Omit<IdempotencyKey, 'id'>) => added(store, body, idempotencyKey)
    const { pet, replayed } =
      key === undefined ? { pet: await add(), replayed: false } : await createOnce(store, key, body, now(), add)
    const location = { Location: `${basePath}/pets/${pet.id}` }
    return { status: 201, body: pet, headers: replayed ? { ...location, 'Idempotent-Replayed': 'true' } : location }
  },

  getPet({ path }, { store }) {
    const id = path.petId
    const pet = store.get(id)
    if (!pet) throw new HttpError(ERRORS.notFound, `No pet with id ${id}`)
    return { status: 200, body: petJson(pet) }
  },

  listOrders() {
    throw new HttpError(
      ERRORS.notImplemented,
      'GET /store/orders is part of the wider interface, which does not specify it',
    )
  },
}
