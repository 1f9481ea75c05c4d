// The control room's handlers of the control API (/__admin, spec/admin.openapi.yaml): resets,
// snapshots, the pets, faults, the clock and namespaces. control-api.ts runs each in the namespace
// `?namespace=` names; a new operation of this room goes here, and needs no other list.
import type { components } from '../contract/admin-types.js'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { ANY_OPERATION, FAULT_KINDS, MAX_FAULTS } from '../namespaces/faults.js'
import { findBadPet } from '../store/initial-data.js'
import { DEFAULT_NAMESPACE, UnknownSnapshot, type Namespace } from '../namespaces/namespaces.js'
import { JsonArray, type Reply } from '../http/reply.js'
import { baselineKey, type Baseline } from '../store/baseline.js'
import { SnapshotExists, type Snapshot } from '../store/snapshots.js'
import { DEFAULT_COUNT, DEFAULT_SEED } from '../store/seed.js'
import { StorageError } from '../store/errors.js'
import { storedPet } from '../store/pets.js'
import { nameProblem, StoreFull } from '../store/limits.js'
import { readDateTime } from '../namespaces/clock.js'
import { invalidBody, ok, operationIds, unknownNamespace, type ControlOperations } from './control-operation.js'
import { testEndsOn, tracesOf } from '../journal/test-ends.js'

export const controlHandlers: ControlOperations = {
  async reset({ body }, { namespace, namespaces, afterReset, exchange }) {
    const seeded = body?.seed !== undefined || body?.count !== undefined
    if (seeded && body?.snapshot !== undefined)
      throw invalidBody('give snapshot alone, or seed and count: a reset starts from one of them')
    const source: Baseline | undefined =
      body?.snapshot !== undefined
        ? { kind: 'snapshot', name: body.snapshot }
        : seeded
          ? { kind: 'seed', seed: body?.seed ?? DEFAULT_SEED, count: body?.count ?? DEFAULT_COUNT }
          : undefined
    try {
      const pets = await storing(namespaces.reset(namespace, source, exchange.came))
      afterReset(namespace)
      return ok({ namespace: namespace.name, pets })
    } catch (error) {
      throw error instanceof UnknownSnapshot ? unknownSnapshot(error.snapshot) : error
    }
  },

  async createSnapshot({ body: { name, namespace: from = DEFAULT_NAMESPACE } }, { namespaces, exchange }) {
    const namespace = await namespaces.existing(from, exchange.came)
    if (namespace === undefined) throw unknownNamespace(from)
    await (await namespaces.hold(namespace, undefined, exchange.came))?.release()
    const store = await namespace.store()
    const clock = namespace.clock.real ? undefined : namespace.clock.now()
    try {
      const snapshot = await storing(namespaces.snapshots.create(name, from, store.all(), clock, exchange.came))
      return { status: 201, body: describeSnapshot(snapshot, []) }
    } catch (error) {
      if (!(error instanceof SnapshotExists)) throw error
      throw new HttpError(
        ERRORS.conflict,
        `A snapshot ${JSON.stringify(name)} exists: delete it first to use the name again`,
      )
    }
  },

  async listSnapshots(_input, { namespaces, exchange }) {
    const forks = await namespaces.forks(exchange.came)
    const snapshots = namespaces.snapshots
      .list()
      .map((snapshot) => describeSnapshot(snapshot, forks.get(baselineKey(snapshot.pets.source)) ?? []))
    return ok({ count: snapshots.length, snapshots })
  },

  async deleteSnapshot({ path: { name } }, { namespaces, exchange }) {
    const key = baselineKey({ kind: 'snapshot', name })
    const { deleted, users } = await storing(
      namespaces.snapshots.delete(
        name,
        async () => (await namespaces.forks(exchange.came)).get(key) ?? [],
        exchange.came,
      ),
    )
    if (users.length > 0)
      throw new HttpError(
        ERRORS.conflict,
        `Snapshot ${JSON.stringify(name)} is in use by namespaces ${users.join(', ')}: reset or delete them first`,
      )
    if (!deleted) throw unknownSnapshot(name)
    return ok({ snapshot: name, deleted: true })
  },

  async exportPets(_input, { namespace }) {
    return ok(new JsonArray((await namespace.store()).all()))
  },

  async replacePets({ body }, { namespace, apiSpec }) {
    // The schema has checked each record; ids must also be unique. Nothing changes before both pass.
    const bad =
      findBadPet(body, apiSpec) ??
      body.map((pet, index) => ({ index, problem: nameProblem(pet.name, 'pet.name') })).find((pet) => pet.problem)
    if (bad) throw invalidBody(`record ${bad.index}: ${bad.problem}; nothing was changed`)
    const store = await namespace.store()
    const pets = body.map((pet) => storedPet(pet.id, pet))
    // The store's source is kept; past a bound, nothing is replaced (StoreFull).
    await storing(
      store.replace({ ...(store.source === undefined ? {} : { source: store.source }), pets }, { bounded: true }),
    )
    return ok({ namespace: namespace.name, pets: store.size })
  },

  addFault({ body: fault }, { namespace, apiSpec }) {
    const known = [...operationIds(apiSpec), ANY_OPERATION]
    if (!known.includes(fault.operationId)) throw invalidBody(`body.operationId must be one of: ${known.join(', ')}`)
    if (fault.status === undefined && fault.delayMs === undefined && fault.fault === undefined)
      throw invalidBody(`a fault needs status, delayMs or fault (one of: ${FAULT_KINDS.join(', ')})`)
    if (namespace.faults.length >= MAX_FAULTS)
      throw new HttpError(
        ERRORS.conflict,
        `Namespace ${namespace.name} has ${MAX_FAULTS} faults armed, the most it keeps: clear them (DELETE /__admin/faults) first`,
      )
    return { status: 201, body: namespace.faults.add(fault) }
  },

  listFaults(_input, { namespace }) {
    const faults = namespace.faults.list()
    return ok({ count: faults.length, faults })
  },

  deleteFault({ path: { id } }, { namespace }) {
    const removed = namespace.faults.remove(id)
    if (removed === undefined)
      throw new HttpError(
        ERRORS.notFound,
        `No fault ${id} in namespace ${JSON.stringify(namespace.name)}: GET /__admin/faults lists those armed`,
      )
    return ok(removed)
  },

  clearFaults(_input, { namespace }) {
    return ok({ namespace: namespace.name, cleared: namespace.faults.clear() })
  },

  getClock(_input, { namespace }) {
    return clockOf(namespace)
  },

  setClock({ body }, { namespace }) {
    const now = readDateTime(body.now)
    if (now.problem !== undefined) throw invalidBody(`body.now ${now.problem}`)
    namespace.clock.set(now.date)
    return clockOf(namespace)
  },

  resetClock(_input, { namespace }) {
    namespace.clock.toRealTime()
    return clockOf(namespace)
  },

  async deleteNamespace({ path: { name } }, { namespaces, exchange }) {
    if (name === DEFAULT_NAMESPACE)
      throw new HttpError(
        ERRORS.invalidParameter,
        'Invalid path parameter: the default namespace cannot be deleted; reset it instead',
      )
    // Its deletion ends its test: a later call in one of the traces it held is a stray of that test.
    const traces = tracesOf(namespaces.find(name)?.journal)
    if (!(await storing(namespaces.delete(name, exchange.came)))) throw unknownNamespace(name)
    testEndsOn(namespaces.journals).end(name, traces, 0)
    return ok({ namespace: name, deleted: true })
  },

  async listNamespaces(_input, { namespaces }) {
    const { journals } = namespaces
    return ok({
      max: namespaces.max,
      maxFaults: MAX_FAULTS,
      journal: {
        bytes: journals.bytes,
        maxBytes: journals.limits.totalBytes,
        maxBytesPerNamespace: journals.limits.bytes,
        maxRequestsPerNamespace: journals.limits.requests,
      },
      namespaces: (await namespaces.all()).map((ns) => ({
        name: ns.name,
        requests: ns.journal.length,
        journalBytes: ns.journal.bytes,
        faults: ns.faults.length,
      })),
    })
  },
}

function unknownSnapshot(name: string): HttpError {
  return new HttpError(ERRORS.notFound, `No snapshot ${JSON.stringify(name)}`)
}

function describeSnapshot(snapshot: Snapshot, forks: string[]): components['schemas']['Snapshot'] {
  const { name, namespace, createdAt, clock, pets } = snapshot
  return { name, namespace, pets: pets.pets.length, clock, createdAt, forks }
}

/** A write the disk refused is a 503, one past a store's bound a 507, as a create's are. */
async function storing<T>(write: Promise<T>): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (error instanceof StorageError)
      throw new HttpError(ERRORS.storageUnavailable, `Nothing was changed: ${error.message}`, RETRY_AFTER)
    if (error instanceof StoreFull) throw new HttpError(ERRORS.storeFull, `Nothing was changed: ${error.message}`)
    throw error
  }
}

function clockOf(namespace: Namespace): Reply {
  return ok({ namespace: namespace.name, ...namespace.clock.toJSON() })
}
