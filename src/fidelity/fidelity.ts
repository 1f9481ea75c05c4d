// The sandbox beside the real API (UPSTREAM): compare answers both and reports drift, record
// answers from the upstream and keeps a session, and every mode passes what the sandbox does not
// implement through to the upstream. Nothing here is on a compared request's path: the upstream
// is called once the sandbox has answered.
import type { IncomingMessage } from 'node:http'
import type { Logger } from 'pino'
import { receivedBody } from '../http/body.js'
import type { Exchange } from '../http/exchange.js'
import { compareAnswers, ignoring, type Answer, type Ignore } from './compare.js'
import { DriftLog, type DriftReport } from './drift.js'
import { keptHeaders, publicUrl, SessionWriter } from './session.js'
import { readAnswer, send, type OutgoingRequest, type UpstreamSettings } from './upstream.js'

/** Requests waiting for the upstream per namespace in compare; past it they are skipped and counted. */
const MAX_QUEUED = 100
const SAFE_METHODS = new Set(['GET'])

/** Per namespace: its drift, its queue to the upstream (kept in order), and the ids each side gave. */
interface NamespaceState {
  readonly drift: DriftLog
  queue: Promise<void>
  queued: number
  /** The sandbox's id of a created pet → the upstream's id of the same pet. */
  readonly ids: Map<string, string>
}

export interface FidelityOptions {
  readonly settings: UpstreamSettings
  readonly basePath: string
  readonly logger: Logger
  /** Operations the sandbox does not implement: the upstream answers them. */
  readonly unimplemented: ReadonlySet<string>
}

/** A namespace as fidelity knows it: an object that lives as long as the namespace, and its name. */
export interface NamespaceRef {
  readonly name: string
}

export class Fidelity {
  readonly #options: FidelityOptions
  readonly #ignore: Ignore
  readonly #upstream: string
  readonly #states = new WeakMap<NamespaceRef, NamespaceState>()
  readonly #session: SessionWriter | undefined

  constructor(options: FidelityOptions) {
    this.#options = options
    const { settings } = options
    this.#ignore = ignoring(settings.ignore)
    this.#upstream = publicUrl(settings.url)
    this.#session =
      settings.mode === 'record'
        ? new SessionWriter(settings.sessionDir, settings.url, settings.apiKey === undefined ? [] : [settings.apiKey])
        : undefined
  }

  get timeoutMs(): number {
    return this.#options.settings.timeoutMs
  }

  get compares(): boolean {
    return this.#options.settings.mode === 'compare'
  }

  /** True when the upstream answers `operationId` instead of the sandbox. */
  answers(operationId: string): boolean {
    return this.#options.settings.mode === 'record' || this.#options.unimplemented.has(operationId)
  }

  /** Answers the request with the upstream's answer (recorded in record mode); a 502 when it has none. */
  async proxy(operationId: string, exchange: Exchange): Promise<undefined> {
    const { req, res, namespace } = exchange
    const { settings, logger } = this.#options
    const request = this.#outgoing(req)
    const fetched = await send(settings.url, settings.apiKey, request, settings.timeoutMs)
    if ('failure' in fetched) {
      logger.warn({ upstream: this.#upstream, operationId, reason: fetched.reason }, 'upstream did not answer')
      const message = `The upstream API (${this.#upstream}) did not answer: ${fetched.reason}`
      const status = fetched.failure === 'upstream-timeout' ? 504 : 502
      const code = fetched.failure === 'upstream-timeout' ? 'upstream_timeout' : 'upstream_unreachable'
      await exchange.answering?.(status)
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify({ code, message, status }))
      return undefined
    }
    const { answer, text } = fetched
    if (this.#session !== undefined && namespace)
      await this.#session.write(namespace.name, operationId, request, answer)
    await exchange.answering?.(answer.status)
    res.writeHead(answer.status, keptHeaders(answer.headers))
    res.end(text)
    return undefined
  }

  /**
   * Compare mode: once the sandbox has answered the exchange (Exchange.answered), sends the request
   * upstream, in order with the namespace's others, and compares the two answers.
   */
  observe(exchange: Exchange): void {
    const { req, res } = exchange
    exchange.keepsAnswer = true
    res.once('finish', () => {
      const { operationId, namespace, answered } = exchange
      if (operationId === undefined || namespace === undefined || this.answers(operationId)) return
      let state = this.#states.get(namespace)
      if (state === undefined)
        this.#states.set(
          namespace,
          (state = { drift: new DriftLog(), queue: Promise.resolve(), queued: 0, ids: new Map() }),
        )
      if (!SAFE_METHODS.has(req.method ?? '') && !(this.#options.settings.unsafe && req.method === 'POST')) {
        if (req.method !== 'HEAD' && req.method !== 'OPTIONS') state.drift.skipped++
        return
      }
      if (state.queued >= MAX_QUEUED || answered === undefined) {
        state.drift.skipped++
        return
      }
      const sandbox = readAnswer(answered.status, answered.headers, answered.body)
      const request = this.#outgoing(req)
      state.queued++
      state.queue = state.queue
        .then(() => this.#compare(state, operationId, request, sandbox, req.headers.authorization))
        .catch((error: unknown) => this.#options.logger.error({ err: error }, 'compare failed'))
        .finally(() => state.queued--)
    })
  }

  /** Resolves once every request of the namespace sent so far has been compared. */
  settled(namespace: NamespaceRef): Promise<void> {
    return this.#states.get(namespace)?.queue ?? Promise.resolve()
  }

  report(namespace: NamespaceRef): DriftReport {
    const drift = this.#states.get(namespace)?.drift ?? new DriftLog()
    return drift.report(namespace.name, this.#upstream, this.#options.settings.mode)
  }

  /** Forgets a namespace's drift and ids (a reset; a deleted namespace is forgotten with it). */
  clear(namespace: NamespaceRef): void {
    this.#states.delete(namespace)
  }

  async #compare(
    state: NamespaceState,
    operationId: string,
    request: OutgoingRequest,
    sandbox: Answer,
    authorization: string | undefined,
  ): Promise<void> {
    const { settings, logger } = this.#options
    const target = { ...request, target: mapIds(request.target, state.ids) }
    const described = { method: request.method, target: request.target }
    // A request the sandbox refused for its key goes up with that same header, not the real key.
    const refused = sandbox.status === 401
    const fetched = await send(
      settings.url,
      refused ? undefined : settings.apiKey,
      target,
      settings.timeoutMs,
      refused && authorization !== undefined ? { authorization } : {},
    )
    if ('failure' in fetched) {
      logger.warn({ upstream: this.#upstream, operationId, reason: fetched.reason }, 'upstream did not answer')
      const { failure: kind, reason } = fetched
      state.drift.add(operationId, described, [{ pointer: '', kind, sandbox: sandbox.status, upstream: reason }])
      return
    }
    const upstream = fetched.answer
    state.drift.add(operationId, described, compareAnswers(sandbox, upstream, this.#ignore))
    const [ours, theirs] = [idOf(sandbox.body), idOf(upstream.body)]
    if (request.method === 'POST' && ours !== undefined && theirs !== undefined) state.ids.set(ours, theirs)
  }

  /** The request as the upstream is sent it: below its base URL, with its body and content type. */
  #outgoing(req: IncomingMessage): OutgoingRequest {
    const url = req.url ?? '/'
    const body = receivedBody(req)
    const contentType = req.headers['content-type']
    return {
      method: req.method ?? 'GET',
      target: url.startsWith(this.#options.basePath) ? url.slice(this.#options.basePath.length) : url,
      body: body === undefined || body.length === 0 ? undefined : body.toString(),
      contentType: body === undefined || body.length === 0 ? undefined : contentType,
    }
  }
}

/** A pet's id in a body, as text. */
export function idOf(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | undefined)?.id
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined
}

/** `/pets/{id}` with the id the other side gave the same pet. */
export function mapIds(target: string, ids: ReadonlyMap<string, string>): string {
  return target.replace(/^\/pets\/([^/?]+)/, (whole, id: string) => {
    const mapped = ids.get(id)
    return mapped === undefined ? whole : `/pets/${mapped}`
  })
}
