// The HTTP app. Every operation of the spec is served by the same pipeline, in this order:
// route → deprecation headers → auth → test control (namespace, faults, Prefer, clock) →
// validation from the spec → handler → store → response.
import type { IncomingMessage, ServerResponse } from 'node:http'
import polka, { type Polka, type Request } from 'polka'
import type { Logger } from 'pino'
import { mountAdmin, type AdminOptions } from './control/operations.js'
import { authenticate, type KeyRing } from './pipeline/auth.js'
import { ADMIN_BASE_PATH, type Awaitable, type Control } from './control/request-control.js'
import { cors } from './http/cors.js'
import { ERRORS, HttpError, sendError } from './http/errors.js'
import { describeEmbedded, mountExplorer, mountSpecDocuments, type SandboxFacts } from './explorer/pages.js'
import { handlers, type Handler, type HandlerContext } from './api/operations.js'
import { sendJson } from './http/reply.js'
import { OperationRoutes } from './pipeline/routes.js'
import type { ApiSpec, Operation } from './spec/types.js'
import type { AnimalStore } from './store/store.js'
import { parseQuery, parseUrl, splitUrl, type Query } from './http/url.js'
import { validateRequest } from './pipeline/validate.js'

export interface AppOptions {
  readonly spec: ApiSpec
  readonly keys: KeyRing
  readonly logger: Logger
  /** What GET / and /docs say about this sandbox; by default, nothing about its keys. */
  readonly facts?: SandboxFacts
  /** Namespaces, journal, faults and clock (src/control/request-control.ts). */
  readonly control: Control
  /** The control API under /__admin; undefined when it is switched off. */
  readonly admin: AdminOptions | undefined
}

/** A request listener for node:http. */
export interface App {
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void
}

export function createApp({ spec, keys, logger, control, admin, facts = describeEmbedded(control.namespaces.defaultStore.size) }: AppOptions): App {
  const answerError = (res: ServerResponse, error: unknown): void => sendError(res, toHttpError(error, logger))
  const serveOperation = operations({ spec, keys, control, answerError })

  // The pages, the control API and the rest of the API (its spec documents, its 404s) are polka
  // routers, picked by path prefix so that a request meets only the routes it may match.
  const router = (): Polka => {
    const app = polka({
      onError: (error, _req, res) => answerError(res, error),
      onNoMatch: (req, res) => sendError(res, new HttpError(ERRORS.notFound, `No resource at ${req.method} ${req.path}`)),
    })
    app.parse = parseUrl
    return app
  }

  const pages = router()
  mountExplorer(pages, { spec, facts })
  // For HEALTHCHECK and wait strategies: the server listens only once the store is loaded.
  pages.get('/healthz', (_req, res) => sendJson(res, { status: 200, body: { status: 'ok' } }))

  let controlApi: Polka | undefined
  if (admin) mountAdmin((controlApi = router()), admin)

  const api = router()
  mountSpecDocuments(api, { spec, facts })

  // polka's handler takes a `next` only when it is mounted in another app.
  const listener = (app: Polka) => app.handler as unknown as App['handler']
  const [toApi, toControlApi, toPages] = [listener(api), controlApi && listener(controlApi), listener(pages)]
  const apiPrefix = `${spec.basePath}/`
  // Request logs cost a listener and a timer per request: none at all when they are off.
  const logRequest = logger.isLevelEnabled('info') ? logRequests(logger, control) : undefined
  const answerPreflight = cors(facts.corsOrigins)
  return {
    // Before any router: the request log, CORS (a preflight is answered here), then the journal
    // and namespace of every request but the control API's own.
    handler(req, res) {
      logRequest?.(req, res)
      if (answerPreflight(req, res)) return
      const url = req.url ?? '/'
      if (url.startsWith(apiPrefix)) {
        control.track(req, res)
        if (!serveOperation(req, res)) toApi(req, res)
      } else if (toControlApi && isUnder(url, ADMIN_BASE_PATH)) {
        toControlApi(req, res)
      } else {
        control.track(req, res)
        toPages(req, res)
      }
    },
  }
}

interface OperationOptions extends Pick<AppOptions, 'spec' | 'keys' | 'control'> {
  readonly answerError: (res: ServerResponse, error: unknown) => void
}

/**
 * The spec's operations, served by the pipeline described at the top of this file. They are the
 * requests test suites send by the thousand, so they are dispatched from routes built once from
 * the spec, ahead of polka, and skip its per-request work (its route list, its promise chain).
 * Returns false when no operation is served at the request's path.
 */
function operations({ spec, keys, control, answerError }: OperationOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  for (const op of spec.operations) if (!(op.operationId in handlers)) throw new Error(`spec: operation ${op.operationId} has no handler`)
  const routes = new OperationRoutes(spec.operations, spec.basePath)
  const deprecation = new Map(spec.operations.map((op) => [op, deprecationHeaders(op, spec.basePath)]))
  const context = (store: AnimalStore): HandlerContext => ({ store, basePath: spec.basePath })

  return (req, res) => {
    const { pathname, search } = splitUrl(req.url ?? '/')
    const match = routes.match(pathname)
    if (match === undefined) return false
    // What the journal records of the request, as polka would have set it.
    ;(req as Request).path = pathname
    ;(req as Request).search = search
    try {
      const op = match.at.byMethod.get(req.method ?? '')
      if (!op) throw new HttpError(ERRORS.methodNotAllowed, `${req.method} is not allowed on ${pathname}; allowed: ${match.at.allow}`, { Allow: match.at.allow })
      // The deprecation headers go on every answer of the operation, Error bodies included.
      res.locals = { operationId: op.operationId, headers: deprecation.get(op) }
      if (op.secured) authenticate(req, keys)
      const handle: Handler = handlers[op.operationId as keyof typeof handlers]
      // Each step waits only if it must (a body, a delay, a durable write): a GET is answered
      // within the request's own turn.
      const answered = then(control.enter(op, req, res), (store) => {
        if (!store) return // a fault has answered
        return then(validateRequest(op, req, match.params, search ? parseQuery(search) : NO_QUERY), (input) =>
          then(handle(input, context(store)), (reply) => sendJson(res, reply)),
        )
      })
      if (answered instanceof Promise) answered.catch((error: unknown) => answerError(res, error))
    } catch (error) {
      answerError(res, error)
    }
    return true
  }
}

const NO_QUERY: Query = new Map()

/** `next(value)`, at once for a value, after it settles for a promise. */
function then<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value)
}

/** `url` is `base` itself or below it. */
function isUnder(url: string, base: string): boolean {
  if (!url.startsWith(base)) return false
  const next = url.charAt(base.length)
  return next === '' || next === '/' || next === '?'
}

/** RFC 9745 Deprecation, RFC 8594 Sunset, and a Link to the replacement, for every response; built once. */
function deprecationHeaders(op: Operation, basePath: string): Readonly<Record<string, string>> | undefined {
  if (!op.deprecated) return undefined
  const headers: Record<string, string> = {}
  if (op.deprecatedSince) headers['Deprecation'] = `@${Math.floor(op.deprecatedSince.getTime() / 1000)}`
  if (op.sunset) headers['Sunset'] = op.sunset.toUTCString()
  if (op.replacement) headers['Link'] = `<${basePath}${op.replacement}>; rel="successor-version"`
  return Object.freeze(headers)
}

/** Known errors answer for themselves; anything else is logged and becomes a 500 that leaks nothing. */
function toHttpError(error: unknown, logger: Logger): HttpError {
  if (error instanceof HttpError) return error
  if ((error as NodeJS.ErrnoException)?.code === 'ECONNRESET') {
    logger.debug({ err: error }, 'client went away')
    return new HttpError(ERRORS.badRequest, 'The client closed the connection')
  }
  logger.error({ err: error }, 'unexpected failure')
  return new HttpError(ERRORS.internal)
}

function logRequests(logger: Logger, control: Control) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now()
    res.once('finish', () => {
      // From the raw URL: a preflight is answered before any router parses it.
      const path = (req.url ?? '').split('?', 1)[0] ?? ''
      // Health probes come every second from HEALTHCHECK and wait strategies: keep them out of info.
      const log = path === '/healthz' ? logger.debug.bind(logger) : logger.info.bind(logger)
      log(
        { method: req.method, path: control.redactor.text(path), status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10, operationId: res.locals?.operationId },
        'request',
      )
    })
  }
}
