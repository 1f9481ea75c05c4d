// GET /metrics (prom-client). Requests are tallied in plain maps; prom-client is loaded by the first
// scrape (some 30 ms a cold start need not pay), so a sandbox nobody scrapes pays nothing.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Exchange } from '../http/exchange.js'
import type { Histogram, Registry } from 'prom-client'
import { ERRORS, HttpError } from '../http/errors.js'
import { UNMATCHED } from '../journal/request-record.js'
import { DEFAULT_NAMESPACE, type Namespaces } from '../namespaces/namespaces.js'

export const METRICS_PATH = '/metrics'

/** Namespaces named in the label besides the default: tests pick names, often one per test, so later ones are OTHER_NAMESPACE. */
export const NAMED_NAMESPACES = 20
export const OTHER_NAMESPACE = 'other'

/** From well under a millisecond (tmpfs) to seconds (a busy disk). */
const WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

export class Metrics {
  readonly #namespaces: Namespaces
  readonly #namedBound: number
  readonly #named = new Set<string>([DEFAULT_NAMESPACE])
  /** namespace label → operation → status → requests. */
  readonly #requests = new Map<string, Map<string, Map<number, number>>>()
  /** operation → requests a fault acted on. */
  readonly #faults = new Map<string, number>()
  /** Made by the first scrape. */
  #registry: Promise<Registry> | undefined
  #writes: Histogram | undefined

  constructor(namespaces: Namespaces, maxNamespaces: number) {
    this.#namespaces = namespaces
    this.#namedBound = Math.min(NAMED_NAMESPACES, maxNamespaces)
  }

  readonly observeWrite = (seconds: number): void => {
    this.#writes?.observe(seconds)
  }

  async scrape(): Promise<{ contentType: string; text: string }> {
    const registry = await (this.#registry ??= this.#load())
    return { contentType: registry.contentType, text: await registry.metrics() }
  }

  async #load(): Promise<Registry> {
    const { Counter, Histogram, Registry, collectDefaultMetrics } = await import('prom-client')
    const registry = new Registry()
    const requests = this.#requests
    const faults = this.#faults
    new Counter({
      name: 'sandbox_requests_total',
      help: `API requests answered, by operation (operationId, or "${UNMATCHED}"), status ("none" when the connection closed without one) and namespace (the default one and the first ${this.#namedBound} others by name, the rest "${OTHER_NAMESPACE}")`,
      labelNames: ['operation', 'status', 'namespace'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [namespace, operations] of requests)
          for (const [operation, statuses] of operations)
            for (const [status, n] of statuses)
              this.inc({ operation, status: status === 0 ? 'none' : String(status), namespace }, n)
      },
    })
    new Counter({
      name: 'sandbox_injected_faults_total',
      help: 'API requests a fault armed through POST /__admin/faults acted on, by operation',
      labelNames: ['operation'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [operation, n] of faults) this.inc({ operation }, n)
      },
    })
    const namespaces = this.#namespaces
    new Counter({
      name: 'sandbox_journal_dropped_total',
      help: 'Journal entries dropped to stay within JOURNAL_SIZE and its byte bound, every namespace together',
      registers: [registry],
      collect() {
        // A namespace's count moves to the retired one when it is cleared, deleted or evicted.
        let dropped = namespaces.retired.journalDropped
        for (const namespace of namespaces.list()) dropped += namespace.journal.tally.journalDropped
        this.reset()
        this.inc(dropped)
      },
    })
    this.#writes = new Histogram({
      name: 'sandbox_store_write_seconds',
      help: 'Durable writes of the data file (a create, a replace or a reset of pets) since the first scrape, until the store acknowledges them',
      buckets: WRITE_BUCKETS,
      registers: [registry],
    })
    collectDefaultMetrics({ register: registry })
    return registry
  }

  /** Counts a request as it closes, answered or not. */
  countOnClose(exchange: Exchange): void {
    exchange.res.on('close', () => this.#count(exchange))
  }

  #count({ res, operationId: operation = UNMATCHED, namespace, injected }: Exchange): void {
    const status = res.headersSent ? res.statusCode : 0
    const label = this.#label(namespace?.name ?? DEFAULT_NAMESPACE)
    let operations = this.#requests.get(label)
    if (operations === undefined) this.#requests.set(label, (operations = new Map()))
    let statuses = operations.get(operation)
    if (statuses === undefined) operations.set(operation, (statuses = new Map()))
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
    if (injected) this.#faults.set(operation, (this.#faults.get(operation) ?? 0) + 1)
  }

  #label(name: string): string {
    if (this.#named.has(name)) return name
    if (this.#named.size > this.#namedBound) return OTHER_NAMESPACE
    this.#named.add(name)
    return name
  }
}

/** GET /metrics; the app lets a request reach it only as it lets one reach the control API. */
export function metricsEndpoint(
  metrics: Metrics,
): (req: IncomingMessage, res: ServerResponse, answerError: (error: unknown) => void) => void {
  return (req, res, answerError) => {
    if ((req.url ?? '').split('?', 1)[0] !== METRICS_PATH) {
      answerError(new HttpError(ERRORS.notFound, `No resource at ${req.method} ${req.url}`))
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      answerError(
        new HttpError(ERRORS.methodNotAllowed, `${METRICS_PATH} is read by GET (the Prometheus text format)`, {
          Allow: 'GET, HEAD',
        }),
      )
      return
    }
    metrics.scrape().then(({ contentType, text }) => {
      res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) })
      res.end(text) // node:http sends no body to a HEAD
    }, answerError)
  }
}
