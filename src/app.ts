// The HTTP app: which part of the sandbox a request goes to. The API's operations and the control
// API's are served by the one pipeline (src/pipeline/pipeline.ts): route → auth → test control
// (namespace, faults, Prefer, clock) → capability hooks → validation from the spec → handler →
// store → response. /healthz, /readyz, the capabilities' pages and every 404 are polka routes.
import type { IncomingMessage, ServerResponse } from 'node:http'
import polka, { type Polka } from 'polka'
import type { Logger } from 'pino'
import { handlers, type HandlerContext } from './api/operations.js'
import type { Capability, Endpoint, RequestHooks } from './capability.js'
import { adminTokenCheck, CONTROL_API_PATH, createControlApi, type ControlApiOptions } from './control/control-api.js'
import type { Control } from './control/request-control.js'
import { cors } from './http/cors.js'
import { Exchange } from './http/exchange.js'
import { ERRORS, HttpError, sendError } from './http/errors.js'
import { sendJson } from './http/reply.js'
import { parseUrl } from './http/url.js'
import { traceIdOf } from './http/trace-context.js'
import type { KeyRing } from './pipeline/auth.js'
import { byOperationId, createPipeline, then, type Pipeline } from './pipeline/pipeline.js'
import type { ApiSpec, Stability } from './contract/types.js'
import { unhandledRejections } from './unhandled-rejections.js'

/** What every sandbox serves: the API, test control and the control API, and the health checks. */
export interface Core {
  readonly spec: ApiSpec
  readonly keys: KeyRing
  readonly logger: Logger
  /** Namespaces, journal, faults and clock (src/control/request-control.ts). */
  readonly control: Control
  /** The control API under /__admin; undefined when it is switched off. */
  readonly controlApi: ControlApiOptions | undefined
  /** Operations below this x-stability are refused (MIN_STABILITY); all are served by default. */
  readonly minStability?: Stability
  /** Origins a browser app may call the API from (CORS_ORIGINS). */
  readonly corsOrigins: readonly string[]
  /** Who may reach the test data: origins, and Host names (src/http/hosts.ts). */
  readonly testData: TestDataAccess
  /** Resolves when the sandbox can serve (its shared database answers); GET /readyz says so. */
  readonly ready?: (() => Promise<void>) | undefined
}

/** Who may reach the test data: the control API and the capabilities' pages of it. */
export interface TestDataAccess {
  /** Origins a browser may call them from (ADMIN_CORS_ORIGINS). */
  readonly corsOrigins: readonly string[]
  /** Whether a request's Host header names this sandbox (ALLOWED_HOSTS and the rest). */
  readonly servesHost: (host: string | undefined) => boolean
}

export function createApp(
  { spec, keys, logger, control, controlApi, minStability, corsOrigins, testData, ready }: Core,
  capabilities: readonly Capability[],
): (req: IncomingMessage, res: ServerResponse) => void {
  const answerError = (exchange: Exchange, error: unknown): void => exchange.fail(toHttpError(error, logger))
  const hooks = capabilities.flatMap(({ hooks }) => (hooks === undefined ? [] : [hooks]))
  const [arrive, onApi] = [hooks.flatMap((h) => h.arrive ?? []), hooks.flatMap((h) => h.api ?? [])]
  const standIns = hooks.flatMap(({ answers, answer }) => (answers && answer ? [{ answers, answer }] : []))
  const serveOperation = apiPipeline({ spec, keys, control, answerError, minStability, standIns })
  const controlRoute = controlApi && createControlApi(controlApi, capabilities, answerError)
  // Built once the first answer is written, in a turn of its own: the first answer never waits for it.
  let warmAfter: ((exchange: Exchange) => void) | undefined =
    controlRoute &&
    ((exchange) => {
      warmAfter = undefined
      exchange.res.once('close', () =>
        setImmediate(() =>
          controlRoute
            .warm()
            .catch((error: unknown) => logger.error({ err: error }, 'the control API cannot be built')),
        ),
      )
    })

  // The pages, the control API and the rest of the API (its spec documents, its 404s) are polka
  // routers, picked by path prefix so that a request meets only the routes it may match.
  const router = (): Polka => {
    const app = polka({
      onError: (error, _req, res) => sendError(res, toHttpError(error, logger)),
      onNoMatch: (req, res) =>
        sendError(res, new HttpError(ERRORS.notFound, `No resource at ${req.method} ${req.path}`)),
    })
    app.parse = parseUrl
    return app
  }

  const pages = router()
  const api = router()
  for (const { routes } of capabilities) {
    routes?.pages?.(pages)
    routes?.api?.(api)
  }
  // Paths served as the control API is (the admin token first): only while that API is on.
  const checkAdminToken = controlApi && adminTokenCheck(controlApi)
  const guarded: ReadonlyArray<readonly [string, Endpoint]> = checkAdminToken
    ? capabilities.flatMap(({ routes }) => Object.entries(routes?.guarded ?? {}))
    : []
  const testDataPages = capabilities.flatMap(({ routes }) => routes?.testData ?? [])
  // For HEALTHCHECK and wait strategies: the server listens only once the store is loaded. The
  // count of rejections no code handled is 0 unless something is wrong (unhandled-rejections.ts).
  pages.get('/healthz', (_req, res) =>
    sendJson(res, { status: 200, body: { status: 'ok', unhandledRejections: unhandledRejections() } }),
  )
  // Readiness, apart from liveness: 503 with Retry-After while the shared database does not answer
  // within its bound, so that a balancer sends elsewhere while nothing here needs a restart.
  pages.get('/readyz', (_req, res) =>
    (ready?.() ?? Promise.resolve()).then(
      () => sendJson(res, { status: 200, body: { status: 'ready' } }),
      (error: unknown) => sendError(res, toHttpError(error, logger)),
    ),
  )

  // polka's handler takes a `next` only when it is mounted in another app. A path no route
  // serves is answered here, where the exchange is known, so that the journal has its 404.
  const route = (app: Polka) => {
    const handler = app.handler as unknown as (req: IncomingMessage, res: ServerResponse) => void
    return (exchange: Exchange): void => {
      const { req, res, path } = exchange
      if (app.find(req.method as 'GET', path).handlers.length > 0) handler(req, res)
      else answerError(exchange, new HttpError(ERRORS.notFound, `No resource at ${req.method} ${path}`))
    }
  }
  const [toApi, toPages] = [route(api), route(pages)]
  const apiPrefix = `${spec.basePath}/`
  // Request logs cost a listener and a timer per request: none at all when they are off.
  const logRequest = logger.isLevelEnabled('info') ? logRequests(logger, control) : undefined
  const answerPreflight = cors(corsOrigins)
  const answerTestDataPreflight = cors(testData.corsOrigins)
  // A configured admin token is a secret no rebinding page knows: control calls then rest on it
  // alone, and any name reaches them (a sandbox other machines call by names of their own).
  const controlChecksHost = controlApi?.localOnly === true
  // Before any router: the request log, the capabilities' arrivals, CORS (a preflight is answered
  // here), the Host of the test data, then the journal and namespace of every request but the
  // control API's own.
  return (req, res) => {
    const exchange = new Exchange(req, res)
    warmAfter?.(exchange)
    logRequest?.(exchange)
    for (const hook of arrive) hook(exchange)
    if (req.headers.host === undefined && req.httpVersion === '1.1') {
      sendError(
        res,
        new HttpError(ERRORS.badRequest, 'An HTTP/1.1 request must carry a Host header (RFC 9112)', {
          Connection: 'close',
        }),
      )
      return
    }
    const url = req.url ?? '/'
    const toControlApi = controlRoute !== undefined && isUnder(url, CONTROL_API_PATH)
    // A guarded path is the control API by other means: the same token, origins and Host names.
    const endpoint = toControlApi ? undefined : guarded.find(([path]) => isUnder(url, path))?.[1]
    const toGuarded = toControlApi || endpoint !== undefined
    const toTestData = toGuarded || testDataPages.some((path) => isUnder(url, path))
    if ((toTestData ? answerTestDataPreflight : answerPreflight)(req, res)) return
    if (toTestData && (controlChecksHost || !toGuarded) && !testData.servesHost(req.headers.host)) {
      answerError(exchange, misdirected(req.headers.host))
      return
    }
    if (url.startsWith(apiPrefix)) {
      const serve = (): void => {
        control.track(exchange)
        for (const hook of onApi) hook(exchange)
        if (!serveOperation(exchange)) toApi(exchange)
      }
      unlessForwarded(control.forward(exchange), serve)
    } else if (toControlApi) {
      unlessForwarded(control.forward(exchange, true), () => controlRoute?.serve(exchange, toPages)) // toPages: a 404
    } else if (endpoint !== undefined) {
      try {
        checkAdminToken?.(req)
      } catch (error) {
        answerError(exchange, error)
        return
      }
      endpoint(req, res, (error) => answerError(exchange, error))
    } else {
      control.track(exchange)
      toPages(exchange)
    }
  }
}

/** Serves a request here unless another replica serves its namespace and was handed it whole (it journals it). */
function unlessForwarded(forwarding: Promise<boolean> | undefined, serve: () => void): void {
  if (forwarding === undefined) serve()
  else void forwarding.then((forwarded) => forwarded || serve())
}

interface ApiPipelineOptions extends Pick<Core, 'spec' | 'keys' | 'control' | 'minStability'> {
  readonly answerError: (exchange: Exchange, error: unknown) => void
  readonly standIns: ReadonlyArray<Required<Pick<RequestHooks, 'answers' | 'answer'>>>
}

/**
 * The spec's operations; test control (src/control/request-control.ts) picks each request's
 * store, then a capability may answer in its place.
 */
function apiPipeline({ spec, keys, control, answerError, minStability, standIns }: ApiPipelineOptions): Pipeline {
  return createPipeline<HandlerContext>({
    spec,
    ...(minStability === undefined ? {} : { minStability }),
    handlers: byOperationId(handlers),
    keys,
    enter: (op, exchange) =>
      then(control.enter(op, exchange), (store) => {
        const standIn = store && standIns.find(({ answers }) => answers(op.operationId))
        if (standIn) return standIn.answer(op.operationId, exchange)
        return store && { store, basePath: spec.basePath, now: () => exchange.namespace?.clock.nowMs() ?? Date.now() }
      }),
    answerError,
  })
}

function misdirected(host: string | undefined): HttpError {
  return new HttpError(
    ERRORS.misdirectedRequest,
    `Host ${JSON.stringify(host)} is not a name of this sandbox: the control API and the coverage and journal pages answer localhost, IP addresses, this machine's name and ALLOWED_HOSTS (a guard against DNS rebinding)`,
  )
}

/** `url` is `base` itself or below it. */
function isUnder(url: string, base: string): boolean {
  if (!url.startsWith(base)) return false
  const next = url.charAt(base.length)
  return next === '' || next === '/' || next === '?'
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
  return (exchange: Exchange): void => {
    const { req, res } = exchange
    const started = performance.now()
    res.once('finish', () => {
      // From the raw URL: a preflight is answered before any router parses it.
      const path = (req.url ?? '').split('?', 1)[0] ?? ''
      // Health probes come every second from HEALTHCHECK and wait strategies: keep them out of info.
      const log = path === '/healthz' || path === '/readyz' ? logger.debug.bind(logger) : logger.info.bind(logger)
      log(
        {
          method: req.method,
          path: control.redactor.text(path),
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          operationId: exchange.operationId,
          traceId: traceIdOf(req),
        },
        'request',
      )
    })
  }
}
