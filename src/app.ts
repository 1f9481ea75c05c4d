// The HTTP app. Every operation of the spec is served by the same pipeline, in this order:
// route → deprecation headers → auth → test control (namespace, faults, Prefer, clock) →
// validation from the spec → handler → store → response.
import type { IncomingMessage, ServerResponse } from 'node:http'
import polka, { type Polka, type Request } from 'polka'
import type { Logger } from 'pino'
import { mountAdmin, type AdminOptions } from './admin.js'
import { authenticate, type KeyRing } from './auth.js'
import { ADMIN_BASE_PATH, type Control } from './control.js'
import { cors } from './cors.js'
import { ERRORS, HttpError, sendError } from './errors.js'
import { describeEmbedded, mountExplorer, mountSpecDocuments, type SandboxFacts } from './explorer.js'
import { handlers } from './handlers.js'
import { sendJson } from './reply.js'
import { exactPathPattern, type ApiSpec, type Operation } from './spec.js'
import { validateRequest } from './validate.js'

export interface AppOptions {
  readonly spec: ApiSpec
  readonly keys: KeyRing
  readonly logger: Logger
  /** What GET / and /docs say about this sandbox; by default, nothing about its keys. */
  readonly facts?: SandboxFacts
  /** Namespaces, journal, faults and clock (src/control.ts). */
  readonly control: Control
  /** The control API under /__admin; undefined when it is switched off. */
  readonly admin: AdminOptions | undefined
}

/** A request listener for node:http. */
export interface App {
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void
}

export function createApp({ spec, keys, logger, control, admin, facts = describeEmbedded(control.namespaces.defaultStore.size) }: AppOptions): App {
  // Three routers, picked by path prefix: polka tries every route of a router in turn, so an API
  // request is matched against the API's few routes only.
  const router = (): Polka => {
    const app = polka({
      onError: (error, _req, res) => sendError(res, toHttpError(error, logger)),
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
  mountOperations(api, { spec, keys, control })

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
        toApi(req, res)
      } else if (toControlApi && isUnder(url, ADMIN_BASE_PATH)) {
        toControlApi(req, res)
      } else {
        control.track(req, res)
        toPages(req, res)
      }
    },
  }
}

/** Every operation of the spec, served by the pipeline described at the top of this file. */
function mountOperations(app: Polka, { spec, keys, control }: Pick<AppOptions, 'spec' | 'keys' | 'control'>): void {
  for (const [path, byMethod] of groupByPath(spec.operations)) {
    const allow = [...byMethod.keys()].join(', ')
    const deprecation = new Map([...byMethod].map(([method, op]) => [method, deprecationHeaders(op, spec.basePath)]))
    const exactPath = exactPathPattern(spec.basePath + path)
    app.all(spec.basePath + path.replace(/\{([^}]+)\}/g, ':$1'), async (req, res) => {
      if (!exactPath.test(req.path)) throw new HttpError(ERRORS.notFound, `No resource at ${req.method} ${req.path}`)
      const op = byMethod.get(req.method)
      if (!op) throw new HttpError(ERRORS.methodNotAllowed, `${req.method} is not allowed on ${req.path}; allowed: ${allow}`, { Allow: allow })
      // The deprecation headers go on every answer of the operation, Error bodies included.
      res.locals = { operationId: op.operationId, headers: deprecation.get(req.method) }
      if (op.secured) authenticate(req, keys)
      const store = await control.enter(op, req, res)
      if (!store) return // a fault has answered
      const input = await validateRequest(op, req, req.params, req.query)
      sendJson(res, await handlers[op.operationId as keyof typeof handlers](input, { store, basePath: spec.basePath }))
    })
  }
}

/**
 * polka's URL parser (@polka/url) with one change: the query is read by URLSearchParams, several
 * times cheaper than the querystring module. A name given more than once gets an array, as there.
 */
function parseUrl(req: IncomingMessage): ReturnType<Polka['parse']> {
  const raw = req.url ?? '/'
  const parsed = (req as Partial<Request>)._parsedUrl
  if (parsed?.raw === raw) return parsed
  let pathname = raw
  let search = ''
  let query: Record<string, string | string[]> | undefined
  let hash: string | undefined
  const hashAt = raw.indexOf('#', 1)
  if (hashAt !== -1) {
    hash = raw.slice(hashAt)
    pathname = raw.slice(0, hashAt)
  }
  const searchAt = pathname.indexOf('?', 1)
  if (searchAt !== -1) {
    search = pathname.slice(searchAt)
    pathname = pathname.slice(0, searchAt)
    if (search.length > 1) {
      const values: Record<string, string | string[]> = Object.create(null)
      for (const [name, value] of new URLSearchParams(search)) {
        const seen = values[name]
        values[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
      }
      query = values
    }
  }
  return ((req as Partial<Request>)._parsedUrl = { pathname, search, query, hash, raw })
}

/** `url` is `base` itself or below it. */
function isUnder(url: string, base: string): boolean {
  if (!url.startsWith(base)) return false
  const next = url.charAt(base.length)
  return next === '' || next === '/' || next === '?'
}

function groupByPath(operations: readonly Operation[]): Map<string, Map<string, Operation>> {
  const paths = new Map<string, Map<string, Operation>>()
  for (const op of operations) {
    if (!(op.operationId in handlers)) throw new Error(`spec: operation ${op.operationId} has no handler`)
    const byMethod = paths.get(op.path) ?? new Map<string, Operation>()
    byMethod.set(op.method, op)
    paths.set(op.path, byMethod)
  }
  return paths
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
