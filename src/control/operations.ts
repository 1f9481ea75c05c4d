// The control API under /__admin, described by spec/admin.openapi.yaml and served by the same
// pipeline as the API. Every operation acts on the namespace named by `?namespace=` (the default
// one when omitted).
import type { ServerResponse } from 'node:http'
import { KeyRing, type Credential } from '../pipeline/auth.js'
import { createPipeline, type Awaitable, type Handler, type Pipeline } from '../pipeline/pipeline.js'
import { ERRORS, HttpError } from '../http/errors.js'
import { FAULT_KINDS, type FaultKind } from './faults.js'
import { findBadPet } from '../store/initial-data.js'
import { UNMATCHED, type JournalEntry } from './request-journal.js'
import { DEFAULT_NAMESPACE, type Namespace, type Namespaces } from './namespaces.js'
import type { Reply } from '../http/reply.js'
import { DEFAULT_COUNT, DEFAULT_SEED, generateAnimals } from '../store/seed.js'
import type { ApiSpec, Operation, SpecFile } from '../spec/types.js'
import { DEFAULT_STATUS, type Pet } from '../store/store.js'
import type { ValidInput } from '../pipeline/validate.js'

const ADMIN_TOKEN: Credential = { name: 'admin token', setting: 'ADMIN_TOKEN', realm: 'Bearer realm="animal-store-admin"' }

export interface ControlApiOptions {
  readonly adminSpec: SpecFile
  /** The user's contract: fault targets and pets are checked against it. */
  readonly apiSpec: ApiSpec
  readonly token: string
  readonly namespaces: Namespaces
}

interface ControlContext extends ControlApiOptions {
  readonly namespace: Namespace
}

type ControlHandler = (input: ValidInput, context: ControlContext) => Awaitable<Reply>

const controlHandlers: Record<string, ControlHandler> = {
  async reset({ body }, { namespace, namespaces, apiSpec }) {
    const { seed, count } = (body ?? {}) as { seed?: number; count?: number }
    const pets = seed === undefined && count === undefined ? undefined : await generateAnimals(apiSpec.schemas['Pet'] ?? {}, seed ?? DEFAULT_SEED, count ?? DEFAULT_COUNT)
    return ok({ namespace: namespace.name, pets: await namespaces.reset(namespace, pets) })
  },

  async exportPets(_input, { namespace }) {
    return ok((await namespace.store()).all())
  },

  async replacePets({ body }, { namespace, namespaces, apiSpec }) {
    // The schema has checked each record; ids must also be unique. Nothing changes before both pass.
    const bad = findBadPet(body, apiSpec)
    if (bad) throw new HttpError(ERRORS.invalidBody, `Invalid request body: record ${bad.index}: ${bad.problem}; nothing was changed`)
    // Only the Pet fields are kept, and an omitted status becomes what createPet gives it.
    const pets = (body as Pet[]).map(({ id, name, categoryId, status }) => ({ id, name, categoryId, status: status ?? DEFAULT_STATUS }))
    const store = await namespace.store()
    await namespaces.replace(store, pets)
    return ok({ namespace: namespace.name, pets: store.size })
  },

  listRequests({ query }, { namespace }) {
    const since = query['since'] === undefined ? undefined : new Date(query['since'] as string)
    const filter = { method: query['method'], path: query['path'], operationId: query['operationId'], status: query['status'], since } as Parameters<Namespace['journal']['find']>[0]
    return page(namespace.journal.find(filter))
  },

  listUnmatchedRequests(_input, { namespace }) {
    return page(namespace.journal.find({ operationId: UNMATCHED }))
  },

  clearRequests(_input, { namespace }) {
    return ok({ namespace: namespace.name, cleared: namespace.journal.clear() })
  },

  addFault({ body }, { namespace, apiSpec }) {
    const fault = body as { operationId: string; status?: number; delayMs?: number; fault?: FaultKind; times?: number; after?: number }
    const operationIds = apiSpec.operations.map((op: Operation) => op.operationId)
    if (!operationIds.includes(fault.operationId)) {
      throw new HttpError(ERRORS.invalidBody, `Invalid request body: body.operationId must be one of: ${operationIds.join(', ')}`)
    }
    if (fault.status === undefined && fault.delayMs === undefined && fault.fault === undefined) {
      throw new HttpError(ERRORS.invalidBody, `Invalid request body: a fault needs status, delayMs or fault (one of: ${FAULT_KINDS.join(', ')})`)
    }
    return { status: 201, body: namespace.faults.add(fault) }
  },

  listFaults(_input, { namespace }) {
    const faults = namespace.faults.list()
    return ok({ count: faults.length, faults })
  },

  clearFaults(_input, { namespace }) {
    return ok({ namespace: namespace.name, cleared: namespace.faults.clear() })
  },

  getClock(_input, { namespace }) {
    return ok({ namespace: namespace.name, ...namespace.clock.toJSON() })
  },

  setClock({ body }, { namespace }) {
    namespace.clock.set(new Date((body as { now: string }).now))
    return ok({ namespace: namespace.name, ...namespace.clock.toJSON() })
  },

  resetClock(_input, { namespace }) {
    namespace.clock.clear()
    return ok({ namespace: namespace.name, ...namespace.clock.toJSON() })
  },

  listNamespaces(_input, { namespaces }) {
    return ok({
      max: namespaces.max,
      namespaces: namespaces.list().map((ns) => ({ name: ns.name, requests: ns.journal.length, faults: ns.faults.length })),
    })
  },
}

/**
 * The control API's pipeline: the same one as the API's (match → 404/405 → admin token →
 * validation from spec/admin.openapi.yaml → handler), with the namespace `?namespace=` names.
 */
export function createControlApi(options: ControlApiOptions, answerError: (res: ServerResponse, error: unknown) => void): Pipeline {
  const { adminSpec, namespaces } = options
  const inNamespace = (handle: ControlHandler): Handler<ControlApiOptions> => (input) =>
    handle(input, { ...options, namespace: namespaces.get((input.query['namespace'] as string | undefined) ?? DEFAULT_NAMESPACE) })
  return createPipeline({
    spec: adminSpec,
    handlers: Object.fromEntries(Object.entries(controlHandlers).map(([operationId, handle]) => [operationId, inNamespace(handle)])),
    keys: new KeyRing([options.token]),
    credential: ADMIN_TOKEN,
    enter: () => options,
    answerError,
  })
}

function ok(body: unknown): Reply {
  return { status: 200, body }
}

function page(entries: JournalEntry[]): Reply {
  return ok({ count: entries.length, entries })
}
