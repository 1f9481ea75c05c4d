// The control API's pipeline: the API's own (match, admin token, validation from
// spec/admin.openapi.yaml), each handler run in the namespace `?namespace=` names. The handlers
// are the core's rooms' and the capabilities' (their `controlOperations`), one per operation.
import type { IncomingMessage } from 'node:http'
import type { SpecOperations } from '../contract/types.js'
import type { Exchange } from '../http/exchange.js'
import { authenticate, KeyRing, type Credential } from '../pipeline/auth.js'
import { createPipeline, type Handler, type Pipeline } from '../pipeline/pipeline.js'
import { MAX_JSON_DEPTH } from '../http/body.js'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { isLoopbackAddress } from '../http/hosts.js'
import { DEFAULT_NAMESPACE, type Namespace } from '../namespaces/namespaces.js'
import {
  unknownNamespace,
  type ControlApiOptions,
  type ControlContext,
  type ControlOperations,
  type ControlPart,
} from './control-operation.js'
import { testEndsOn } from '../journal/test-ends.js'
import { bundleHandlers } from './bundle.js'
import { controlHandlers } from './operations.js'

export type { ControlApiOptions }

const ADMIN_TOKEN: Credential = {
  name: 'admin token',
  setting: 'ADMIN_TOKEN',
  realm: 'Bearer realm="animal-store-admin"',
}

/** Where the control API is served: spec/admin.openapi.yaml's server, checked when it is built. */
export const CONTROL_API_PATH = '/__admin'

/** The control API, served before it is built: a call that comes first waits for the build. */
export interface ControlApi {
  /** Serves a call under CONTROL_API_PATH; one no operation matches goes to `unmatched` (a 404). */
  readonly serve: (exchange: Exchange, unmatched: (exchange: Exchange) => void) => void
  /** Builds it now, when nothing waits: a later first call then costs what any call costs. */
  readonly warm: () => Promise<unknown>
}

/**
 * The control API, built at its first call or when warmed, whichever comes first. A start is
 * judged by its first healthy answer: loading the spec and making 26 operations' pipeline waits
 * until after it (docs/performance.md). A spec operation without its one handler fails the build:
 * warming logs that line, and every control call answers it as a 500.
 */
export function createControlApi(
  options: ControlApiOptions,
  capabilities: readonly ControlPart[],
  answerError: (exchange: Exchange, error: unknown) => void,
): ControlApi {
  let built: Pipeline | undefined
  let building: Promise<Pipeline> | undefined
  const build = (): Promise<Pipeline> =>
    (building ??= options.controlSpec().then(
      (controlSpec) => {
        if (controlSpec.basePath !== CONTROL_API_PATH)
          throw new Error(`the control API's spec serves ${controlSpec.basePath}, not ${CONTROL_API_PATH}`)
        return (built = controlPipeline(controlSpec, options, capabilities, answerError))
      },
      (error: unknown) => {
        // A disk that failed the spec's read is a 503, and the spec is read again at the next call.
        building = undefined
        if (typeof (error as NodeJS.ErrnoException | undefined)?.code !== 'string') throw error
        throw new HttpError(
          ERRORS.storageUnavailable,
          `The control API could not be read from disk: ${(error as Error).message}`,
          RETRY_AFTER,
        )
      },
    ))
  return {
    serve: (exchange, unmatched) => {
      if (built !== undefined) {
        if (!built(exchange)) unmatched(exchange)
        return
      }
      build().then(
        (pipeline) => {
          if (!pipeline(exchange)) unmatched(exchange)
        },
        (error: unknown) => answerError(exchange, error),
      )
    },
    warm: build,
  }
}

function controlPipeline(
  controlSpec: SpecOperations,
  options: ControlApiOptions,
  capabilities: readonly ControlPart[],
  answerError: (exchange: Exchange, error: unknown) => void,
): Pipeline {
  const { namespaces } = options
  const handlers = controlHandlersOf(controlSpec, capabilities)
  const resets = capabilities.flatMap(({ reset }) => reset ?? [])
  const afterReset = (namespace: Namespace): void => {
    for (const reset of resets) reset(namespace)
  }
  // An operation without ?namespace= works on other namespaces, or on none: it holds those it uses.
  // A wait holds its namespace only for the moments it reads, never for the long call.
  const holdsNoNamespace = new Set([
    'awaitRequests',
    ...controlSpec.operations
      .filter((op) => !op.parameters.some((p) => p.in === 'query' && p.name === 'namespace'))
      .map((op) => op.operationId),
  ])
  // Reads and clears need a namespace that exists: a misspelt name is a 404, not a new, empty
  // namespace that passes every "no calls were made" check.
  // Every reset is one such call (a test suite makes thousands): nothing is awaited that is no
  // promise, since each await allocates, and that garbage is what a sandbox's memory grows by.
  const inNamespace =
    (operationId: string, handle: Handler<ControlContext>): Handler<Exchange> =>
    async (input, exchange) => {
      const name = (input.query['namespace'] as string | undefined) ?? DEFAULT_NAMESPACE
      const namespace = CREATES_ITS_NAMESPACE.has(operationId)
        ? namespaces.get(name)
        : await namespaces.existing(name, exchange.came)
      if (namespace === undefined) throw unknownNamespace(name)
      namespace.begin() // not evicted while its change is on its way
      try {
        // When its backend holds it: up to date, and its change committed before the answer.
        const holding =
          holdsNoNamespace.has(operationId) || input.query['all'] === true
            ? undefined
            : namespaces.hold(namespace, undefined, exchange.came)
        const hold = holding && (await holding)
        // Whatever fails after the hold (a snapshot lookup too) lets the namespace go.
        try {
          // Snapshots another replica made or deleted are seen (one process: nothing to read).
          const refreshing = SNAPSHOT_OPERATIONS.has(operationId)
            ? namespaces.snapshots.refresh(exchange.came)
            : undefined
          if (refreshing) await refreshing
          const reply = await handle(input, { ...options, namespace, afterReset, exchange })
          if (CREATES_ITS_NAMESPACE.has(operationId)) testEndsOn(namespaces.journals).begin(name)
          if (hold) await hold.release()
          return reply
        } catch (error) {
          if (hold) await hold.abandon()
          throw error
        }
      } finally {
        namespace.end()
      }
    }
  return createPipeline({
    spec: controlSpec,
    handlers: Object.fromEntries(
      Object.entries(handlers).map(([operationId, handle]) => [operationId, inNamespace(operationId, handle)]),
    ),
    keys: new KeyRing([options.token]),
    credential: ADMIN_TOKEN,
    maxJsonDepth: MAX_JSON_DEPTH,
    enter: (_op, exchange) => {
      if (options.localOnly && !isLoopbackAddress(exchange.req.socket.remoteAddress)) throw DEFAULT_TOKEN_FROM_AFAR
      return exchange
    },
    answerError,
  })
}

/**
 * Each operation of the spec with its one handler, from the core's rooms and the capabilities.
 * An operation without one, or with two, stops the start with one line that names it.
 */
export function controlHandlersOf(
  controlSpec: SpecOperations,
  capabilities: readonly ControlPart[],
): Readonly<Record<string, Handler<ControlContext>>> {
  const rooms: ReadonlyArray<readonly [string, ControlOperations]> = [
    ['control', controlHandlers],
    ['bundle', bundleHandlers],
    ...capabilities.flatMap(({ name, controlOperations }) =>
      controlOperations === undefined ? [] : [[name, controlOperations] as const],
    ),
  ]
  const handlers: Record<string, Handler<ControlContext>> = {}
  const owners = new Map<string, string>()
  const specified = new Set(controlSpec.operations.map((op) => op.operationId))
  for (const [room, operations] of rooms)
    for (const [operationId, handle] of Object.entries(operations) as Array<[string, Handler<ControlContext>]>) {
      const owner = owners.get(operationId)
      if (owner !== undefined)
        throw new Error(`control API operation ${operationId} has two handlers, in ${owner} and ${room}`)
      if (!specified.has(operationId))
        throw new Error(`control API operation ${operationId} (in ${room}) is not in ${controlSpec.basePath}'s spec`)
      owners.set(operationId, room)
      handlers[operationId] = handle
    }
  const missing = [...specified].find((operationId) => !owners.has(operationId))
  if (missing !== undefined) throw new Error(`control API operation ${missing} has no handler`)
  return handlers
}

/** The control API's admin token check, for a page that shows more to its holder: throws its 401. */
export function adminTokenCheck(options: ControlApiOptions): (req: IncomingMessage) => void {
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

/**
 * The operations that read the named snapshots, which other replicas may have made or deleted. A
 * reset looks them up itself, and only when it starts from one.
 */
const SNAPSHOT_OPERATIONS: ReadonlySet<string> = new Set(['createSnapshot', 'listSnapshots', 'deleteSnapshot'])

/** The operations that may bring a namespace into being (as an API request naming it does). */
const CREATES_ITS_NAMESPACE: ReadonlySet<string> = new Set(['reset', 'replacePets', 'addFault', 'setClock'])
