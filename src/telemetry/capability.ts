// The telemetry capability: a span per API and control API request when OTEL_* asks for export
// (the SDK is loaded only then), and GET /metrics while the control API is on.
import type { Logger } from 'pino'
import type { Capability } from '../capability.js'
import type { Namespaces } from '../namespaces/namespaces.js'
import type { Operation } from '../contract/types.js'
import { Metrics, METRICS_PATH, metricsEndpoint } from './metrics.js'
import { startTelemetry } from './telemetry.js'

export interface TelemetrySettings {
  /** The SDK reads its OTEL_* settings from the environment itself, whoever starts the sandbox. */
  readonly env: NodeJS.ProcessEnv
  /** The API's operations and the control API's, each under its base path: read only when spans are exported. */
  readonly apis: () => Promise<ReadonlyArray<{ readonly basePath: string; readonly operations: readonly Operation[] }>>
  readonly logger: Logger
  /** The namespaces /metrics counts; undefined when it is off (as the control API, whose token it takes). */
  readonly scraped: { readonly namespaces: Namespaces; readonly maxNamespaces: number } | undefined
}

export interface TelemetryCapability extends Capability {
  /** Times a durable write of the stores (the stores are opened before any capability). */
  readonly observeWrite: ((seconds: number) => void) | undefined
}

export async function telemetry({ env, apis, logger, scraped }: TelemetrySettings): Promise<TelemetryCapability> {
  const spans = await startTelemetry(env, apis, logger)
  const metrics = scraped && new Metrics(scraped.namespaces, scraped.maxNamespaces)
  return {
    name: 'telemetry',
    hooks: {
      arrive: spans?.trace,
      api: metrics && ((exchange) => metrics.countOnClose(exchange)),
    },
    routes: metrics && { guarded: { [METRICS_PATH]: metricsEndpoint(metrics) } },
    observeWrite: metrics?.observeWrite,
    close: spans && (() => spans.shutdown()),
  }
}
