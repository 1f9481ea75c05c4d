// The control API under /__admin, described by spec/admin.openapi.yaml and served by the same
// pipeline as the API. Every operation acts on the namespace named by `?namespace=` (the default
// one when omitted).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { authenticate, KeyRing, type Credential } from '../pipeline/auth.js'
import { byOperationId, createPipeline, type Handler, type HandlersOf, type Pipeline } from '../pipeline/pipeline.js'
import type { components, operations } from '../contract/admin-types.js'
import { MAX_JSON_DEPTH } from '../http/body.js'
import { ERRORS, HttpError, RETRY_AFTER, type ErrorTemplate } from '../http/errors.js'
import { isLoopbackAddress } from '../http/hosts.js'
import { FAULT_KINDS, MAX_FAULTS } from './faults.js'
import { findBadPet } from '../store/initial-data.js'
import type { JournalCursor } from './request-journal.js'
import { UNMATCHED } from './request-record.js'
import { DEFAULT_NAMESPACE, UnknownSnapshot, type Namespace, type Namespaces } from './namespaces.js'
import { JsonArray, TypedText, type Reply } from '../http/reply.js'
import { seedOrigin, snapshotOrigin } from '../store/origin.js'
import { SnapshotExists, type Snapshot } from '../store/snapshots.js'
import { DEFAULT_COUNT, DEFAULT_SEED } from '../store/seed.js'
import type { ApiSpec, SpecFile } from '../contract/types.js'
import { StorageError } from '../store/errors.js'
import { storedPet } from '../store/pets.js'
import { nameProblem, StoreFull } from '../store/limits.js'
import { readDateTime } from './clock.js'
import { coverageMarkdown, coverageOf } from './coverage.js'
import { verify } from './verify.js'
import { pactOf } from '../pact/export.js'
import { dataState } from '../pact/states.js'
import type { Fidelity } from '../fidelity/fidelity.js'
import { DriftLog } from '../fidelity/drift.js'

const ADMIN_TOKEN: Credential = {
  name: 'admin token',
  setting: 'ADMIN_TOKEN',
  realm: 'Bearer realm="animal-store-admin"',
}

export interface ControlApiOptions {
  readonly adminSpec: SpecFile
  /** The user's contract: fault targets and pets are checked against it. */
  readonly apiSpec: ApiSpec
  readonly token: string
  /** The token is the published default: it is accepted only over loopback, from this machine. */
  readonly localOnly: boolean
  readonly namespaces: Namespaces
  /** The real API beside the sandbox (UPSTREAM), when one is set: its drift is read here. */
  readonly fidelity?: Fidelity | undefined
}

interface ControlContext extends ControlApiOptions {
  readonly namespace: Namespace
}

const controlHandlers: HandlersOf<operations, ControlContext> = {
  async reset({ body }, { namespace, namespaces, fidelity }) {
    const seeded = body?.seed !== undefined || body?.count !== undefined
    if (seeded && body?.snapshot !== undefined)
      throw new HttpError(
        ERRORS.invalidBody,
        'Invalid request body: give snapshot alone, or seed and count: a reset starts from one of them',
      )
    const origin =
      body?.snapshot !== undefined
        ? snapshotOrigin(body.snapshot)
        : seeded
          ? seedOrigin(body?.seed ?? DEFAULT_SEED, body?.count ?? DEFAULT_COUNT)
          : undefined
    try {
      const pets = await storing(namespaces.reset(namespace, origin))
      fidelity?.clear(namespace)
      return ok({ namespace: namespace.name, pets })
    } catch (error) {
      throw error instanceof UnknownSnapshot ? unknownSnapshot(error.snapshot) : error
    }
  },

  async createSnapshot({ body: { name, namespace: from = DEFAULT_NAMESPACE } }, { namespaces }) {
    const namespace = await namespaces.existing(from)
    if (namespace === undefined) throw unknownNamespace(from)
    const store = await namespace.store()
    const clock = namespace.clock.real ? undefined : namespace.clock.now()
    try {
      const snapshot = await storing(namespaces.snapshots.create(name, from, store.all(), clock))
      return { status: 201, body: describeSnapshot(snapshot, []) }
    } catch (error) {
      if (!(error instanceof SnapshotExists)) throw error
      throw new HttpError(CONFLICT, `A snapshot ${JSON.stringify(name)} exists: delete it first to use the name again`)
    }
  },

  async listSnapshots(_input, { namespaces }) {
    const forks = await namespaces.forks()
    const snapshots = namespaces.snapshots
      .list()
      .map((snapshot) => describeSnapshot(snapshot, forks.get(snapshot.pets.origin) ?? []))
    return ok({ count: snapshots.length, snapshots })
  },

  async deleteSnapshot({ path: { name } }, { namespaces }) {
    const origin = snapshotOrigin(name)
    const { deleted, users } = await storing(
      namespaces.snapshots.delete(name, async () => (await namespaces.forks()).get(origin) ?? []),
    )
    if (users.length > 0)
      throw new HttpError(
        CONFLICT,
        `Snapshot ${JSON.stringify(name)} is in use by namespaces ${users.join(', ')}: reset or delete them first`,
      )
    if (!deleted) throw unknownSnapshot(name)
    return ok({ snapshot: name, deleted: true })
  },

  async exportPets(_input, { namespace }) {
    return ok(new JsonArray((await namespace.store()).all()))
  },

  async replacePets({ body }, { namespace, namespaces, apiSpec }) {
    // The schema has checked each record; ids must also be unique. Nothing changes before both pass.
    const bad = findBadPet(body, apiSpec) ?? findLongName(body)
    if (bad)
      throw new HttpError(
        ERRORS.invalidBody,
        `Invalid request body: record ${bad.index}: ${bad.problem}; nothing was changed`,
      )
    const store = await namespace.store()
    await storing(
      namespaces.replace(
        store,
        body.map((pet) => storedPet(pet.id, pet)),
      ),
    )
    return ok({ namespace: namespace.name, pets: store.size })
  },

  listRequests({ query: { method, path, operationId, status, since, traceId, limit, after } }, { namespace }) {
    const filter = {
      method,
      path,
      operationId,
      status,
      since: since === undefined ? undefined : sinceDate(since),
      traceId,
    }
    return ok(namespace.journal.page(filter, cursor(limit, after)))
  },

  listUnmatchedRequests({ query: { limit, after } }, { namespace }) {
    return ok(namespace.journal.page({ operationId: UNMATCHED }, cursor(limit, after)))
  },

  clearRequests(_input, { namespace }) {
    return ok({ namespace: namespace.name, cleared: namespace.journal.clear() })
  },

  getCoverage({ query }, { namespace, namespaces, apiSpec }) {
    if (query.all === true && query.namespace !== undefined)
      throw new HttpError(
        ERRORS.invalidParameter,
        'Invalid query parameter: all=true reports on every namespace; leave out namespace',
      )
    const report = coverageOf(apiSpec, namespaces, query.all === true ? undefined : namespace, query.traceId)
    return ok(query.format === 'markdown' ? new TypedText(MARKDOWN, coverageMarkdown(report)) : report)
  },

  verify({ query: { traceId }, body: { expectations, strict = false } }, { namespace, apiSpec }) {
    const known = [...apiSpec.operations.map((op) => op.operationId), UNMATCHED]
    expectations.forEach((expectation, i) => {
      if (!known.includes(expectation.operationId))
        throw new HttpError(
          ERRORS.invalidBody,
          `Invalid request body: body.expectations.${i}.operationId must be one of: ${known.join(', ')}`,
        )
      if (expectation.count !== undefined && (expectation.min !== undefined || expectation.max !== undefined))
        throw new HttpError(
          ERRORS.invalidBody,
          `Invalid request body: body.expectations.${i} gives count with min or max: give count alone, or min and max`,
        )
      if ((expectation.min ?? 0) > (expectation.max ?? Infinity))
        throw new HttpError(ERRORS.invalidBody, `Invalid request body: body.expectations.${i}.min is above its max`)
    })
    const { journal } = namespace
    // The counts of every call do not tell traces apart: a trace's calls are the entries kept.
    const counts = traceId === undefined ? journal.tally : { journalDropped: journal.tally.journalDropped }
    return ok(verify(namespace.name, journal.find({ traceId }), expectations, strict, counts))
  },

  async exportPact({ query }, { namespace, apiSpec }) {
    const info = apiSpec.document['info'] as { title?: string } | undefined
    return ok(
      pactOf(apiSpec, {
        consumer: query.consumer ?? namespace.name,
        provider: query.provider ?? info?.title ?? 'provider',
        namespace: namespace.name,
        entries: namespace.journal.find(),
        dropped: namespace.journal.tally.journalDropped,
        state: dataState(await dataOrigin(namespace)),
      }),
    )
  },

  addFault({ body: fault }, { namespace, apiSpec }) {
    const operationIds = apiSpec.operations.map((op) => op.operationId)
    if (!operationIds.includes(fault.operationId)) {
      throw new HttpError(
        ERRORS.invalidBody,
        `Invalid request body: body.operationId must be one of: ${operationIds.join(', ')}`,
      )
    }
    if (fault.status === undefined && fault.delayMs === undefined && fault.fault === undefined) {
      throw new HttpError(
        ERRORS.invalidBody,
        `Invalid request body: a fault needs status, delayMs or fault (one of: ${FAULT_KINDS.join(', ')})`,
      )
    }
    if (namespace.faults.length >= MAX_FAULTS)
      throw new HttpError(
        CONFLICT,
        `Namespace ${namespace.name} has ${MAX_FAULTS} faults armed, the most it keeps: clear them (DELETE /__admin/faults) first`,
      )
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
    const now = readDateTime(body.now)
    if (now.problem !== undefined)
      throw new HttpError(ERRORS.invalidBody, `Invalid request body: body.now ${now.problem}`)
    namespace.clock.set(now.date)
    return ok({ namespace: namespace.name, ...namespace.clock.toJSON() })
  },

  resetClock(_input, { namespace }) {
    namespace.clock.clear()
    return ok({ namespace: namespace.name, ...namespace.clock.toJSON() })
  },

  async deleteNamespace({ path: { name } }, { namespaces }) {
    if (name === DEFAULT_NAMESPACE) {
      throw new HttpError(
        ERRORS.invalidParameter,
        'Invalid path parameter: the default namespace cannot be deleted; reset it instead',
      )
    }
    if (!(await storing(namespaces.delete(name)))) throw unknownNamespace(name)
    return ok({ namespace: name, deleted: true })
  },

  async getDrift(_input, { namespace, fidelity }) {
    if (fidelity === undefined) return ok(NO_UPSTREAM(namespace.name))
    // The comparisons under way, within the bound of one upstream answer.
    await Promise.race([fidelity.settled(namespace), new Promise((resolve) => setTimeout(resolve, fidelity.timeoutMs))])
    return ok(fidelity.report(namespace))
  },

  listNamespaces(_input, { namespaces }) {
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
      namespaces: namespaces.list().map((ns) => ({
        name: ns.name,
        requests: ns.journal.length,
        journalBytes: ns.journal.bytes,
        faults: ns.faults.length,
      })),
    })
  },
}

/**
 * The control API's pipeline: the same one as the API's (match → 404/405 → admin token →
 * validation from spec/admin.openapi.yaml → handler), with the namespace `?namespace=` names.
 */
export function createControlApi(
  options: ControlApiOptions,
  answerError: (res: ServerResponse, error: unknown) => void,
): Pipeline {
  const { adminSpec, namespaces } = options
  // The namespace `?namespace=` names (the spec checks its form): operations that set something
  // create it; those that read or clear need one that exists, so that a misspelt name is a 404
  // rather than a new, empty namespace that passes every "no calls were made" check.
  const inNamespace =
    (operationId: string, handle: Handler<ControlContext>): Handler<ControlApiOptions> =>
    async (input) => {
      const name = (input.query['namespace'] as string | undefined) ?? DEFAULT_NAMESPACE
      const namespace = CREATES_ITS_NAMESPACE.has(operationId) ? namespaces.get(name) : await namespaces.existing(name)
      if (namespace === undefined) throw unknownNamespace(name)
      namespace.begin() // not evicted while its change is on its way
      try {
        return await handle(input, { ...options, namespace })
      } finally {
        namespace.end()
      }
    }
  return createPipeline({
    spec: adminSpec,
    handlers: Object.fromEntries(
      Object.entries(byOperationId(controlHandlers)).map(([operationId, handle]) => [
        operationId,
        inNamespace(operationId, handle),
      ]),
    ),
    keys: new KeyRing([options.token]),
    credential: ADMIN_TOKEN,
    maxJsonDepth: MAX_JSON_DEPTH,
    enter: (_op, req) => {
      if (options.localOnly && !isLoopbackAddress(req.socket.remoteAddress)) throw DEFAULT_TOKEN_FROM_AFAR
      return options
    },
    answerError,
  })
}

/**
 * The control API's checks of the admin token, for a page that shows more to its holder
 * (/docs/coverage): throws the 401 the control API would answer.
 */
export function adminCheck(options: ControlApiOptions): (req: IncomingMessage) => void {
  const keys = new KeyRing([options.token])
  return (req) => {
    authenticate(req, keys, ADMIN_TOKEN)
    if (options.localOnly && !isLoopbackAddress(req.socket.remoteAddress)) throw DEFAULT_TOKEN_FROM_AFAR
  }
}

const DEFAULT_TOKEN_FROM_AFAR = new HttpError(
  ERRORS.unauthorized,
  'The default admin token is accepted only from this machine (loopback): set ADMIN_TOKEN to control the sandbox from elsewhere',
  { 'WWW-Authenticate': `${ADMIN_TOKEN.realm}, error="invalid_token"` },
)

/** The operations that may bring a namespace into being (as an API request naming it does). */
const CREATES_ITS_NAMESPACE: ReadonlySet<string> = new Set(['reset', 'replacePets', 'addFault', 'setClock'])

/** A change the current state forbids (a snapshot name taken, a snapshot still in use). */
const CONFLICT: ErrorTemplate = {
  status: 409,
  code: 'conflict',
  message: 'The request conflicts with the current state',
}

function unknownSnapshot(name: string): HttpError {
  return new HttpError(ERRORS.notFound, `No snapshot ${JSON.stringify(name)}`)
}

function describeSnapshot(snapshot: Snapshot, forks: string[]): components['schemas']['Snapshot'] {
  const { name, namespace, createdAt, clock, pets } = snapshot
  return { name, namespace, pets: pets.pets.length, clock, createdAt, forks }
}

function unknownNamespace(name: string): HttpError {
  return new HttpError(
    ERRORS.notFound,
    `No namespace ${JSON.stringify(name)}: reading or clearing never creates one (a reset, a replace, a fault, a clock or an API request naming it does)`,
  )
}

/**
 * A write of the control API that the disk refused is a 503, and one past a bound on what the
 * stores keep a 507, as a create's are: nothing was changed.
 */
async function storing<T>(write: Promise<T>): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (error instanceof StorageError) {
      throw new HttpError(ERRORS.storageUnavailable, `Nothing was changed: ${error.message}`, RETRY_AFTER)
    }
    if (error instanceof StoreFull) throw new HttpError(ERRORS.storeFull, `Nothing was changed: ${error.message}`)
    throw error
  }
}

/** The first pet whose name is past the sandbox's bound, as findBadPet reports a bad record. */
function findLongName(pets: ReadonlyArray<{ name: string }>): { index: number; problem: string } | undefined {
  for (const [index, pet] of pets.entries()) {
    const problem = nameProblem(pet.name, 'pet.name')
    if (problem) return { index, problem }
  }
  return undefined
}

const MARKDOWN = 'text/markdown; charset=utf-8'

/** The drift report of a sandbox with no UPSTREAM: nothing compared. */
const NO_UPSTREAM = (namespace: string) => new DriftLog().report(namespace, null, 'off')

function ok(body: unknown): Reply {
  return { status: 200, body }
}

/** The journal's `since`, read as the clock reads a date-time. */
function sinceDate(since: string): Date {
  const read = readDateTime(since)
  if (read.problem !== undefined)
    throw new HttpError(ERRORS.invalidParameter, `Invalid query parameter: query.since ${read.problem}`)
  return read.date
}

/** The page asked for: validation has given `limit` the spec's default when the request had none. */
function cursor(limit: number | undefined, after: number | undefined): JournalCursor {
  return { limit: limit as number, after }
}

/** The data a namespace started from: the shared pets it holds (a seed's, a snapshot's), else its data file's origin. */
async function dataOrigin(namespace: Namespace): Promise<string | undefined> {
  const store = await namespace.store()
  return store.base ?? store.origin
}
