// OpenTelemetry server spans, one per API and control API request, parented to the caller's
// traceparent and exported over OTLP/HTTP when the OTEL_* variables ask. Off, nothing is loaded.
import type { Exchange } from '../http/exchange.js'
import type { Logger } from 'pino'
import { ConfigError } from '../setting-readers.js'
import { DEFAULT_NAMESPACE } from '../namespaces/namespaces.js'
import type { Operation } from '../contract/types.js'
import { describeRequest } from './telemetry-attributes.js'

/** The sandbox's own span attributes, beside the semantic conventions' (telemetry-attributes.ts). */
const OWN_ATTRIBUTES = {
  operationId: 'sandbox.operation_id',
  namespace: 'sandbox.namespace',
  fault: 'sandbox.fault',
  deprecated: 'sandbox.deprecated',
} as const

/** Starts a request's span; it is recorded as the answer ends (or the connection does). */
export type TraceRequest = (exchange: Exchange) => void

export interface Telemetry {
  readonly trace: TraceRequest
  /** Exports the spans not yet sent. */
  shutdown(): Promise<void>
}

/**
 * Read as the SDKs read the variables. Settings the sandbox cannot honour stop the start, rather
 * than leave a suite wondering where its spans went.
 */
export function telemetryWanted(env: NodeJS.ProcessEnv): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false
  const endpoints = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'].filter((name) => env[name])
  const exporters = (env['OTEL_TRACES_EXPORTER'] || 'otlp').split(',').map((name) => name.trim().toLowerCase())
  if (endpoints.length === 0 || exporters.includes('none')) return false
  const other = exporters.find((name) => name !== 'otlp')
  if (other !== undefined)
    throw new ConfigError(`OTEL_TRACES_EXPORTER=${other} is not supported: the sandbox exports otlp (or none)`)
  for (const name of endpoints)
    if (!isHttpUrl(env[name] ?? ''))
      throw new ConfigError(`${name} must be an http:// or https:// URL, got ${JSON.stringify(env[name])}`)
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'])
    if (env[name]?.trim().toLowerCase() === 'grpc')
      throw new ConfigError(
        `${name}=grpc is not supported: the sandbox exports OTLP over HTTP; point the endpoint at the collector's HTTP port (4318)`,
      )
  return true
}

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol)
}

/**
 * The telemetry the environment asks for, or undefined (and nothing loaded) when it asks for none;
 * `apis`: the API's operations and the control API's, each under its base path.
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv,
  readApis: () => Promise<ReadonlyArray<{ readonly basePath: string; readonly operations: readonly Operation[] }>>,
  logger: Logger,
): Promise<Telemetry | undefined> {
  if (!telemetryWanted(env)) return undefined
  const [apis, api, core, resources, sdk, otlp, semconv] = await Promise.all([
    readApis(),
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/semantic-conventions'),
  ])
  // The SDK says nothing unless given a logger: a failed export is worth a warning.
  const warn = (message: string, ...args: unknown[]): void =>
    logger.warn(args.length > 0 ? { args } : {}, `OpenTelemetry: ${readable(message)}`)
  const quiet = (): void => {}
  api.diag.setLogger({ error: warn, warn, info: quiet, debug: quiet, verbose: quiet }, api.DiagLogLevel.WARN)
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the sandbox's own name.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'animal-store-sandbox' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  // The exporter and the batch processor read their OTEL_EXPORTER_OTLP_* and OTEL_BSP_* settings.
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())],
  })
  const tracer = provider.getTracer('animal-store-sandbox')
  const propagator = new core.W3CTraceContextPropagator()

  const operations = new Map(
    apis.flatMap(({ basePath, operations }) =>
      operations.map((op) => [op.operationId, { route: basePath + op.path, deprecated: op.deprecated }] as const),
    ),
  )
  const prefixes = apis.map(({ basePath }) => basePath)
  const underApi = (path: string): boolean =>
    prefixes.some((base) => path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}?`))

  const describe = describeRequest(semconv)
  const trace: TraceRequest = (exchange) => {
    const { req, res } = exchange
    const started = performance.now()
    // What the socket says is read now: it may be gone by the time the answer ends.
    const arrived = describe.arrival(req)
    res.once('close', () => {
      const { operationId, fault } = exchange
      const op = operationId === undefined ? undefined : operations.get(operationId)
      // Pages, documents, health checks and /mcp have no span: only the APIs' requests.
      if (op === undefined && !underApi(exchange.path)) return
      const answered = res.headersSent
      const { name, attributes } = describe.answer(arrived, exchange, op?.route, answered ? res.statusCode : undefined)
      if (operationId !== undefined) attributes[OWN_ATTRIBUTES.operationId] = operationId
      const namespace = exchange.namespace?.name ?? controlNamespaceOf(exchange)
      if (namespace !== undefined) attributes[OWN_ATTRIBUTES.namespace] = namespace
      if (fault) attributes[OWN_ATTRIBUTES.fault] = fault
      if (op?.deprecated) attributes[OWN_ATTRIBUTES.deprecated] = true
      const parent = propagator.extract(api.ROOT_CONTEXT, req.headers, api.defaultTextMapGetter)
      const span = tracer.startSpan(name, { kind: api.SpanKind.SERVER, startTime: started, attributes }, parent)
      // Server spans are errors for 5xx answers and for connections closed without one.
      if (!answered) span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'no answer was sent' })
      else if (res.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR })
      span.end()
    })
  }
  return { trace, shutdown: () => provider.shutdown() }
}

/** The SDK's error handler hands over an error as JSON text: its message is what a reader needs. */
function readable(message: string): string {
  if (!message.startsWith('{')) return message
  try {
    return (JSON.parse(message) as { message?: string }).message ?? message
  } catch {
    return message
  }
}

/** A control API call acts on the namespace its ?namespace= names, the default one without it. */
function controlNamespaceOf({ operationId, search }: Exchange): string | undefined {
  if (operationId === undefined) return undefined
  return new URLSearchParams(search).get('namespace') ?? DEFAULT_NAMESPACE
}
