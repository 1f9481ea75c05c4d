// Starts a sandbox: spec → initial data → store → app → HTTP server, and stops it cleanly.
import { rename, writeFile } from 'node:fs/promises'
import { STATUS_CODES, createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Logger } from 'pino'
import { createApp } from './app.js'
import { KeyRing } from './pipeline/auth.js'
import { ConfigError, DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY, type Config } from './config.js'
import { coverageMarkdown, coverageOf } from './control/coverage.js'
import { Control } from './control/request-control.js'
import { limitConnections } from './http/connections.js'
import { mcpEndpoint } from './mcp/http.js'
import { ERRORS, HttpError, errorJson } from './http/errors.js'
import { hostsServed } from './http/hosts.js'
import type { SandboxFacts } from './explorer/pages.js'
import { JournalMemory } from './control/journal-memory.js'
import { Redactor } from './control/redactor.js'
import { createLogger } from './logger.js'
import { startTelemetry } from './telemetry.js'
import { Namespaces, namespaceOfKey } from './control/namespaces.js'
import { loadSpec, loadSpecFile } from './contract/load.js'
import { ADMIN_SPEC_FILE } from './paths.js'
import type { ApiSpec } from './contract/types.js'
import type { AnimalStore } from './store/store.js'
import type { DataFileOptions } from './store/data-file.js'
import { openStores, type Stores } from './store/stores.js'
import { Fidelity } from './fidelity/fidelity.js'
import { UNIMPLEMENTED } from './api/operations.js'
import { Metrics } from './control/metrics.js'

/** How long a stop waits for requests in flight before it cuts their connections. */
const STOP_GRACE_MS = 1500

/**
 * What one client may hold of the server. A sandbox runs next to test suites on the same machine,
 * so honest clients send a request in milliseconds; these bounds only stop slow or stuck clients
 * from holding sockets forever, and keep a flood of connections from exhausting file descriptors.
 */
export interface ServerLimits {
  /** The request line and headers must arrive within this time, else 408 and the connection is cut. */
  readonly headersTimeoutMs: number
  /** The whole request, body included, must arrive within this time, else 408. */
  readonly requestTimeoutMs: number
  /**
   * An idle keep-alive connection is closed after this time. Longer than any common client pool
   * keeps one (Go 90 s, OkHttp 5 min, undici 10 min, Java's HttpClient 20 min), so it is the
   * client that closes it: a request sent just as the server closed it would fail, unretried if
   * it is a POST.
   */
  readonly keepAliveTimeoutMs: number
  /** A connection with no traffic at all (e.g. opened and never used) is closed after this time. */
  readonly idleSocketTimeoutMs: number
  /** How often the header and request timeouts are checked: their resolution. */
  readonly timeoutCheckIntervalMs: number
  /** The request line plus headers may not exceed this many bytes, else 431. */
  readonly maxHeaderBytes: number
  /**
   * Connections open at once. Past it, the connection that has waited longest without a request in
   * progress is closed to make room (src/http/connections.ts); a new one is refused only when every
   * connection is serving a request.
   */
  readonly maxConnections: number
  /** Connections one client address may hold; the rest stay open to other addresses. */
  readonly maxConnectionsPerAddress: number
  /**
   * Of each of the two caps, connections API requests may not be served on: health checks and the
   * control API keep them while every other connection serves a long request. Past the API's
   * share, an API request is answered 503 server_busy at once.
   */
  readonly reservedConnections: number
}

export const SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 30 * 60_000,
  idleSocketTimeoutMs: 60_000,
  timeoutCheckIntervalMs: 1_000,
  maxHeaderBytes: 16 * 1024,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 960,
  reservedConnections: 64,
}

export interface Sandbox {
  readonly server: Server
  /** The default namespace's store. */
  readonly store: AnimalStore
  /** Every namespace: its store, journal, faults and clock. */
  readonly namespaces: Namespaces
  /** e.g. http://127.0.0.1:4010 */
  readonly origin: string
  /** The API's base URL, e.g. http://127.0.0.1:4010/v1 */
  readonly baseUrl: string
  /** What the data came from, for the banner. */
  readonly dataDescription: string
  /** Stops accepting, finishes requests in flight, flushes the store. */
  close(): Promise<void>
}

export async function startSandbox(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  limits: ServerLimits = SERVER_LIMITS,
  /** How data files are written; tests pass a file system that fails chosen calls. */
  storage: DataFileOptions = {},
): Promise<Sandbox> {
  const spec = await loadContract(config.specFile)
  // GET /metrics, on while the control API is: made after the stores, which tell it their writes through this.
  let metrics: Metrics | undefined
  const stores = await openStores({
    dataFile: config.dataFile,
    source: config.source,
    spec,
    bounds: config.storeBounds,
    logger,
    storage,
    observeWrite: config.adminToken === undefined ? undefined : (seconds) => metrics?.observeWrite(seconds),
  })
  try {
    return await serve(config, logger, limits, spec, stores, (made) => (metrics = made))
  } catch (error) {
    await stores.close()
    throw error
  }
}

async function serve(
  config: Config,
  logger: Logger,
  limits: ServerLimits,
  spec: ApiSpec,
  stores: Stores,
  setMetrics: (metrics: Metrics) => void,
): Promise<Sandbox> {
  const store = stores.default
  const { description: dataDescription, fromDataFile } = stores
  const facts = describeSandbox(config, { fromDataFile, description: dataDescription, count: store.size })
  const prefix = config.namespaceKeyPrefix
  const upstreamKey = config.upstream?.apiKey
  const redactor = new Redactor(
    [...config.apiKeys, ...(config.adminToken ? [config.adminToken] : []), ...(upstreamKey ? [upstreamKey] : [])],
    {
      keyPrefix: prefix,
      headers: config.redactHeaders,
    },
  )
  const namespaces = new Namespaces({
    stores,
    journals: new JournalMemory(config.journal),
    redactor,
    maxNamespaces: config.maxNamespaces,
    logger,
    clock: config.clock,
  })
  // In the key mode, every key of the family opens the API (and picks its namespace).
  const keys = new KeyRing(
    config.apiKeys,
    prefix === undefined ? undefined : (token) => namespaceOfKey(token, prefix) !== undefined,
  )
  const control = new Control({
    namespaces,
    redactor,
    basePath: spec.basePath,
    namespaceKeyPrefix: prefix,
    namespaceFromTrace: config.namespaceFromTrace,
    traceNamespaceBaseline: config.traceNamespaceBaseline,
    keys,
  })
  const metrics = config.adminToken === undefined ? undefined : new Metrics(control, config.maxNamespaces)
  if (metrics) setMetrics(metrics)
  const fidelity =
    config.upstream &&
    new Fidelity({ settings: config.upstream, basePath: spec.basePath, logger, unimplemented: UNIMPLEMENTED })
  const admin =
    config.adminToken === undefined
      ? undefined
      : {
          adminSpec: await loadSpecFile(ADMIN_SPEC_FILE),
          apiSpec: spec,
          token: config.adminToken,
          localOnly: config.adminToken === DEFAULT_ADMIN_TOKEN,
          namespaces,
          fidelity,
        }
  // The SDK reads its OTEL_* settings from the environment itself, whoever starts the sandbox.
  const telemetry = await startTelemetry(
    process.env,
    {
      apis: admin ? [spec, admin.adminSpec] : [spec],
    },
    logger,
  )
  const testData = { corsOrigins: config.adminCorsOrigins, servesHost: hostsServed(config.allowedHosts, config.host) }
  // The MCP tools call this sandbox over loopback HTTP, as the stdio server calls one elsewhere.
  let origin = ''
  const mcp =
    config.adminToken === undefined
      ? undefined
      : mcpEndpoint(() => ({
          url: origin,
          apiKey: config.apiKeys[0] ?? DEFAULT_API_KEY,
          adminToken: config.adminToken,
          allNamespaces: config.mcpAllNamespaces,
        }))
  const app = createApp({
    spec,
    keys,
    logger,
    control,
    admin,
    facts,
    minStability: config.minStability,
    testData,
    mcp,
    fidelity,
    traceRequest: telemetry?.trace,
    metrics,
  })
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // node:http would refuse an HTTP/1.1 request without Host with an empty 400; the app
    // answers it with an Error body instead, like every other refusal.
    requireHostHeader: false,
  })
  const apiPrefix = `${spec.basePath}/`
  limitConnections(server, limits, { serve: app.handler, shared: (req) => req.url?.startsWith(apiPrefix) === true })
  // With no 'timeout' listener, a socket idle this long is destroyed.
  server.setTimeout(limits.idleSocketTimeoutMs)
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => {
      server.off('error', reject)
      resolve()
    })
  })

  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  origin = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`
  let closing: Promise<void> | undefined
  return {
    server,
    store,
    namespaces,
    origin,
    baseUrl: origin + spec.basePath,
    dataDescription,
    close: () =>
      (closing ??= stop(server, namespaces)
        .then(async () => {
          if (config.coverageFile !== undefined) await writeCoverage(config.coverageFile, spec, namespaces)
          await telemetry?.shutdown()
        })
        .finally(() => stores.close())),
  }
}

/** The contract served: spec/openapi.yaml, or the copy SPEC_FILE names, refused with its reason. */
async function loadContract(file: string | undefined): Promise<ApiSpec> {
  if (file === undefined) return loadSpec()
  try {
    const spec = await loadSpec(file)
    const wanted = (await loadSpec()).operations.map((op) => op.operationId).sort()
    const served = spec.operations.map((op) => op.operationId).sort()
    if (wanted.join() !== served.join())
      throw new Error(`its operations must be those of the sandbox (${wanted.join(', ')}), got ${served.join(', ')}`)
    return spec
  } catch (error) {
    throw new ConfigError(`SPEC_FILE ${file} cannot be served: ${(error as Error).message}`)
  }
}

/**
 * COVERAGE_FILE: the report of every namespace, once the last request is answered, for CI to
 * keep. Written aside and renamed, so a reader never sees half a report.
 */
async function writeCoverage(file: string, spec: ApiSpec, namespaces: Namespaces): Promise<void> {
  const report = coverageOf(spec, namespaces)
  const text = file.endsWith('.md') ? coverageMarkdown(report) : `${JSON.stringify(report, null, 2)}\n`
  await writeFile(`${file}.tmp`, text)
  await rename(`${file}.tmp`, file)
}

async function stop(server: Server, store: { flush(): Promise<void> }): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  // Idle keep-alive connections would hold close() open: end them now, and again as requests
  // in flight finish; after the grace period, cut whatever is left.
  server.closeIdleConnections()
  const sweep = setInterval(() => server.closeIdleConnections(), 50)
  const cut = setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS)
  await closed
  clearInterval(sweep)
  clearTimeout(cut)
  await store.flush()
}

/** Malformed HTTP never reaches the app: answer it with the Error contract too. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new HttpError(ERRORS.headersTooLarge)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new HttpError(ERRORS.requestTimeout)
        : new HttpError(ERRORS.badRequest, `The request is not valid HTTP (${error.code ?? 'parse error'})`)
  const body = errorJson(problem)
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** What the pages (GET /, /docs) say about this sandbox: configured keys are never among it. */
export function describeSandbox(
  config: Config,
  loaded: { fromDataFile: boolean; description: string; count: number },
): SandboxFacts {
  const { source } = config
  return {
    defaultApiKey: config.defaultApiKey ? config.apiKeys[0] : undefined,
    data: {
      source: loaded.fromDataFile ? 'data file' : source.kind,
      description: loaded.description,
      seed: source.kind === 'seed' ? source.seed : null,
      count: loaded.count,
      file: config.dataFile ?? null,
    },
    corsOrigins: config.corsOrigins,
    minStability: config.minStability,
  }
}
