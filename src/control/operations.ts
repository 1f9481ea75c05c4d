// The control API under /__admin, described by spec/admin.openapi.yaml and served like the API:
// route → admin token → validation from its spec → handler. Every operation acts on the namespace
// named by `?namespace=` (the default one when omitted).
import type { Polka } from 'polka'
import { authenticate, KeyRing, type Credential } from '../pipeline/auth.js'
import { ERRORS, HttpError } from '../http/errors.js'
import { FAULT_KINDS, type FaultKind } from './faults.js'
import { findBadPet } from '../store/initial-data.js'
import { UNMATCHED, type JournalEntry } from './request-journal.js'
import { DEFAULT_NAMESPACE, type Namespace, type Namespaces } from './namespaces.js'
import { sendJson, type Reply } from '../http/reply.js'
import { DEFAULT_COUNT, DEFAULT_SEED, generateAnimals } from '../store/seed.js'
import { OperationRoutes } from '../pipeline/routes.js'
import type { ApiSpec, Operation, SpecFile } from '../spec/types.js'
import { DEFAULT_STATUS, type Pet } from '../store/store.js'
import { validateRequest, type ValidInput } from '../pipeline/validate.js'

const ADMIN_TOKEN: Credential = { name: 'admin token', setting: 'ADMIN_TOKEN', realm: 'Bearer realm="animal-store-admin"' }

export interface AdminOptions {
  readonly adminSpec: SpecFile
  /** The user's contract: fault targets and pets are checked against it. */
  readonly apiSpec: ApiSpec
  readonly token: string
  readonly namespaces: Namespaces
}

interface AdminContext extends AdminOptions {
  readonly namespace: Namespace
}

type AdminHandler = (input: ValidInput, context: AdminContext) => Reply | Promise<Reply>

const adminHandlers: Record<string, AdminHandler> = {
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

/** Mounts every operation of the control API's spec on `app`. */
export function mountAdmin(app: Polka, options: AdminOptions): void {
  const { adminSpec, namespaces } = options
  const keys = new KeyRing([options.token])
  for (const op of adminSpec.operations) if (!(op.operationId in adminHandlers)) throw new Error(`admin spec: operation ${op.operationId} has no handler`)
  const routes = new OperationRoutes(adminSpec.operations, adminSpec.basePath)
  for (const { template } of routes.paths) {
    // polka finds the route (it matches regardless of case); the spec's routes decide, exactly.
    app.all(adminSpec.basePath + template.replace(/\{([^}]+)\}/g, ':$1'), async (req, res) => {
      const match = routes.match(req.path)
      if (!match) throw new HttpError(ERRORS.notFound, `No resource at ${req.method} ${req.path}`)
      const op = match.at.byMethod.get(req.method)
      if (!op) throw new HttpError(ERRORS.methodNotAllowed, `${req.method} is not allowed on ${req.path}; allowed: ${match.at.allow}`, { Allow: match.at.allow })
      if (op.secured) authenticate(req, keys, ADMIN_TOKEN)
      const input = await validateRequest(op, req, match.params, new Map(Object.entries(req.query)))
      const namespace = namespaces.get((input.query['namespace'] as string | undefined) ?? DEFAULT_NAMESPACE)
      sendJson(res, await (adminHandlers[op.operationId] as AdminHandler)(input, { ...options, namespace }))
    })
  }
}

function ok(body: unknown): Reply {
  return { status: 200, body }
}

function page(entries: JournalEntry[]): Reply {
  return ok({ count: entries.length, entries })
}
