// The sandbox beside the real API (UPSTREAM): compare answers both and reports drift, record
// answers from the upstream and keeps a session, and every mode passes what the sandbox does not
// implement through to the upstream. Nothing here is on a compared request's path: the upstream
// is called once the sandbox has answered. Only what the sandbox served goes up, with the
// upstream's own key; every secret is cut out of what comes back (upstream.ts).
import type { IncomingMessage } from 'node:http'
import type { Logger } from 'pino'
import { receivedBody } from '../http/body.js'
import { ERRORS, HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import { compareAnswers, ignoring, type Answer, type Ignore } from './compare.js'
import { DriftLog, type DriftReport } from './drift.js'
import type { Redact } from '../http/secret-forms.js'
import { keptHeaders, publicUrl, SessionWriter } from './session.js'
import {
  driftKind,
  readAnswer,
  redactedHeaders,
  send,
  UPSTREAM_ERRORS,
  type Fetched,
  type OutgoingRequest,
  type UpstreamSettings,
} from './upstream.js'

/** Requests waiting for the upstream per namespace in compare; past it they are skipped and counted. */
const MAX_QUEUED = 100
const SAFE_METHODS = new Set(['GET'])
/**
 * The Errors that answer a request the sandbox accepted (no such pet, an operation past its
 * sunset): compared. Any other is the sandbox refusing the request (its key, its parameters, its
 * body, its own limits), which is never sent upstream.
 */
const ACCEPTED_ERRORS: ReadonlySet<string> = new Set([ERRORS.notFound.code, ERRORS.gone.code])
const CARRIES_SECRET =
  'The request carries a secret of this sandbox (an API key or the admin token) in its query or body: it is not sent to the upstream API'

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
  /** Cuts every configured secret (the upstream's key, the sandbox's keys and admin token) out of a text. */
  readonly redact: Redact
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
      settings.mode === 'record' ? new SessionWriter(settings.sessionDir, settings.url, options.redact) : undefined
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
    const request = this.#outgoing(req)
    if (this.#carriesSecret(request)) {
      exchange.fail(new HttpError(ERRORS.badRequest, CARRIES_SECRET))
      return undefined
    }
    const fetched = await this.#send(operationId, request)
    if ('failure' in fetched) {
      const template = UPSTREAM_ERRORS[fetched.failure]
      exchange.fail(new HttpError(template, `${template.message}: ${fetched.reason} (${this.#upstream})`))
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
      const { redact } = this.#options
      const request = this.#outgoing(req)
      const refused = exchange.error !== undefined && !ACCEPTED_ERRORS.has(exchange.error.code)
      if (refused || this.#carriesSecret(request) || state.queued >= MAX_QUEUED || answered === undefined) {
        state.drift.skipped++
        return
      }
      const sandbox = readAnswer(
        answered.status,
        redactedHeaders(Object.entries(answered.headers), redact),
        redact(answered.body),
      )
      state.queued++
      state.queue = state.queue
        .then(() => this.#compare(state, operationId, request, sandbox))
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

  async #compare(state: NamespaceState, operationId: string, request: OutgoingRequest, sandbox: Answer): Promise<void> {
    const target = { ...request, target: mapIds(request.target, state.ids) }
    const described = { method: request.method, target: request.target }
    const fetched = await this.#send(operationId, target)
    if ('failure' in fetched) {
      const { failure, reason } = fetched
      // An answer too large to read is still an answer: its body is what could not be compared.
      const [pointer, ours] = failure === 'upstream-too-large' ? ['/body', sandbox.body] : ['', sandbox.status]
      const kind = driftKind(failure)
      state.drift.add(operationId, described, [{ pointer, kind, sandbox: ours, upstream: reason }])
      return
    }
    const upstream = fetched.answer
    state.drift.add(operationId, described, compareAnswers(sandbox, upstream, this.#ignore))
    const [ours, theirs] = [idOf(sandbox.body), idOf(upstream.body)]
    if (request.method === 'POST' && ours !== undefined && theirs !== undefined) state.ids.set(ours, theirs)
  }

  /** Sends the request upstream with its key; a failure is logged (its reason cut too). */
  async #send(operationId: string, request: OutgoingRequest): Promise<Fetched> {
    const { settings, logger, redact } = this.#options
    const fetched = await send(settings.url, settings.apiKey, request, { ...settings, redact })
    if ('failure' in fetched) {
      const reason = redact(fetched.reason)
      logger.warn({ upstream: this.#upstream, operationId, reason }, 'upstream did not answer in full')
      return { ...fetched, reason }
    }
    return fetched
  }

  /** A secret of the sandbox's in the query or the body (a key where a header was meant) never goes up. */
  #carriesSecret({ target, body }: OutgoingRequest): boolean {
    return [target, body ?? ''].some((text) => this.#options.redact(text) !== text)
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
