// Test control inside the API's request pipeline: which namespace a request belongs to, the
// journal entry it leaves, and the faults, Prefer preferences and clock that may shape its answer.
import { readRawBody, receivedBody } from '../http/body.js'
import { ERRORS, HttpError, templateForStatus } from '../http/errors.js'
import { requestHeaders, type Exchange } from '../http/exchange.js'
import { traceIdOf } from '../http/trace-context.js'
import { bearerToken, type KeyRing } from '../pipeline/auth.js'
import {
  breakResponse,
  delay,
  describeFault,
  readPrefer,
  successStatus,
  twinHeaders,
  type Fault,
  type Preference,
} from '../namespaces/faults.js'
import type { Redactor } from '../journal/redactor.js'
import { UNMATCHED, type RequestRecord } from '../journal/request-record.js'
import { namespaceOf, type Namespace, type NamespaceHold, type Namespaces } from '../namespaces/namespaces.js'
import type { Awaitable } from '../pipeline/pipeline.js'
import type { Operation } from '../contract/types.js'
import type { AnimalStore } from '../store/store.js'

interface RequestState {
  /** The namespace the request names; it is created only once the request passes auth. */
  readonly asked: string | undefined
  /** The snapshot the asked namespace starts from if it is new: a trace's (TRACE_NAMESPACE_BASELINE). */
  readonly baseline: string | undefined
  /** Set once the snapshots were brought up to date (made elsewhere, by another replica) for `baseline`. */
  refreshed?: boolean
  readonly problem: string | undefined
  /** Until the request passes auth, an existing namespace or the default one. */
  namespace: Namespace
  /** Set once the request is being served in the namespace it names (Namespace.begin). */
  serving: boolean
  /** Set once the request has passed auth. */
  authenticated: boolean
  /** When its backend holds it: the namespace, held from enter() until the answer is committed. */
  hold: NamespaceHold | undefined
  /** Set once the exchange closed: a hold that comes after is let go at once. */
  closed?: boolean
  /**
   * Records the request in its namespace's journal (once): as its answer starts, or as it is broken
   * off. With a backend that holds the namespace, the answer waits for the promise: the entry and every change committed.
   */
  journal(status: number | null): Promise<void> | undefined
}

export interface ControlOptions {
  readonly namespaces: Namespaces
  readonly redactor: Redactor
  /** The API's base path (/v1): requests under it are journaled even when no operation matched. */
  readonly basePath: string
  readonly namespaceKeyPrefix: string | undefined
  /** A request that names no namespace but carries a valid traceparent works in its trace's (NAMESPACE_FROM_TRACE). */
  readonly namespaceFromTrace: boolean
  /** The snapshot a trace's new namespace starts from (TRACE_NAMESPACE_BASELINE); undefined: the initial data. */
  readonly traceNamespaceBaseline: string | undefined
  /** The API keys: requests without one are journaled apart (a flood of them must not flush the rest). */
  readonly keys: KeyRing
}

export class Control {
  readonly namespaces: Namespaces
  /** Cuts keys and tokens out of anything recorded (journal, logs). */
  readonly redactor: Redactor
  readonly #options: ControlOptions

  constructor(options: ControlOptions) {
    this.#options = options
    this.namespaces = options.namespaces
    this.redactor = options.redactor
  }

  /**
   * Hands the request, before it is tracked, to the replica that serves its namespace: undefined when
   * this one does. Control calls name it in ?namespace= or in their path (/namespaces/{name}).
   */
  forward(exchange: Exchange, control = false): Promise<boolean> | undefined {
    const asked = control
      ? (/\/namespaces\/([^/]+)$/.exec(exchange.path)?.[1] ?? new URLSearchParams(exchange.search).get('namespace'))
      : namespaceOf(exchange.req, this.#options.namespaceKeyPrefix, this.#options.namespaceFromTrace).name
    return this.namespaces.forward(asked ?? this.namespaces.default.name, exchange)
  }

  /** Picks the request's namespace, and journals the request as it is answered. */
  track(exchange: Exchange): void {
    const { req, res } = exchange
    const { namespaces, basePath, namespaceKeyPrefix, namespaceFromTrace, keys } = this.#options
    const asked = namespaceOf(req, namespaceKeyPrefix, namespaceFromTrace)
    // Unauthenticated requests must not create namespaces: a flood of them would evict real ones.
    const existing = asked.name === undefined ? undefined : namespaces.find(asked.name)
    const time = Date.now()
    const started = performance.now()
    let journaled = false
    const state: RequestState = {
      namespace: existing ?? namespaces.default,
      asked: asked.name,
      baseline:
        asked.problem === undefined && asked.fromTrace === true ? this.#options.traceNamespaceBaseline : undefined,
      problem: asked.problem,
      authenticated: false,
      serving: false,
      hold: undefined,
      journal: (status) => {
        if (journaled) return undefined
        journaled = true
        const { path, search, operationId } = exchange
        // Other pages the server may serve (health, docs) are not API requests; unknown ones are.
        if (operationId === undefined && !path.startsWith(`${basePath}/`) && status !== 404)
          return state.hold?.release()
        const entry = (answered = status, error = exchange.error): RequestRecord => ({
          time,
          namespace: state.namespace.name,
          method: req.method ?? '',
          path,
          search,
          // HTTP/2's pseudo-headers (:method, :path…) are the request line, which the entry has already.
          headers: requestHeaders(req),
          body: receivedBody(req),
          status: answered,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          operationId: operationId ?? UNMATCHED,
          fault: exchange.fault,
          error,
          // A request no operation matched never met auth: its key is checked here.
          authenticated: state.authenticated || keys.has(bearerToken(req) ?? ''),
          traceId: traceIdOf(req),
        })
        const entryOf = (failure?: HttpError): RequestRecord =>
          failure === undefined ? entry() : entry(failure.status, { code: failure.code, message: failure.message })
        // Refused before enter() (auth, route), or its hold failed: its backend journals it.
        if (state.hold === undefined) return namespaces.record(state.namespace, entryOf)
        state.namespace.journal.record(entry())
        // Not committed: its backend keeps it with its answer, for the namespace's journal.
        return state.hold.release().catch((failure: unknown) => {
          const error = failure instanceof HttpError ? failure : new HttpError(ERRORS.internal, ERRORS.internal.message)
          namespaces.later(state.namespace, entryOf(error))
          throw failure
        })
      },
    }
    exchange.control = state
    exchange.namespace = state.namespace
    // Journaled as its answer starts, before its bytes leave: a client that has read an answer
    // finds its request in the journal. The app's own pages are journaled as they close.
    exchange.answering = state.journal
    res.on('close', () => {
      state.closed = true
      state.journal(res.headersSent ? res.statusCode : null)?.catch(() => undefined)
      if (state.serving) state.namespace.end()
    })
  }

  /**
   * After auth, before validation: applies the request's namespace, its faults, its Prefer header
   * and the clock. Gives the namespace's store, or undefined when a fault has already answered.
   * It waits only when there is something to wait for (a body to read, a delay), so a plain GET
   * goes through without a promise.
   */
  enter(op: Operation, exchange: Exchange): Awaitable<AnimalStore | undefined> {
    const state = exchange.control as RequestState | undefined
    if (state === undefined) throw new Error('control: the request was not tracked')
    const { req } = exchange
    state.authenticated = true
    if (state.problem !== undefined) throw new HttpError(ERRORS.invalidParameter, state.problem)
    // A trace's new namespace starts from a snapshot another replica may have made: looked up once.
    const { namespaces } = this
    if (state.baseline !== undefined && !state.refreshed && !namespaces.find(state.asked ?? '')) {
      state.refreshed = true
      const refreshing = namespaces.snapshots.refresh()
      if (refreshing) return refreshing.then(() => this.enter(op, exchange))
    }
    // Authenticated: now the named namespace is created, or marked as the most recently used.
    if (state.asked !== undefined) {
      exchange.namespace = state.namespace = namespaces.get(state.asked, state.baseline, bearerToken(req))
      state.namespace.begin()
      state.serving = true
    }
    const prefer = readPrefer(req)
    // Read now, so that the journal holds the body even when a fault answers instead of the API.
    if (op.requestBody)
      return readRawBody(req)
        .then(ignore, ignore)
        .then(() => this.#held(op, exchange, state, prefer))
    return this.#held(op, exchange, state, prefer)
  }

  /** When its backend holds the namespace, the rest runs while it is held. */
  #held(
    op: Operation,
    exchange: Exchange,
    state: RequestState,
    prefer: Preference,
  ): Awaitable<AnimalStore | undefined> {
    const holding = this.namespaces.hold(state.namespace, bearerToken(exchange.req), exchange.came)
    if (holding === undefined) return this.#applyFaults(op, exchange, state, prefer)
    return holding.then((hold) => (keep(state, hold) ? this.#applyFaults(op, exchange, state, prefer) : undefined))
  }

  /** Waits out a delay; a held namespace is let go meanwhile, so that other requests in it go on. */
  async #pause(ms: number, { req, res }: Exchange, state: RequestState): Promise<void> {
    const held = state.hold
    if (held !== undefined) {
      state.hold = undefined
      await held.release()
    }
    await delay(ms, res)
    if (held !== undefined && !res.destroyed) keep(state, await this.namespaces.hold(state.namespace, bearerToken(req)))
  }

  #applyFaults(
    op: Operation,
    exchange: Exchange,
    state: RequestState,
    prefer: Preference,
  ): Awaitable<AnimalStore | undefined> {
    const fault = state.namespace.faults.take(op.operationId)
    if (fault) {
      exchange.fault = describeFault(fault)
      exchange.injected = true
    } else if (prefer.code !== undefined || prefer.delayMs !== undefined) {
      exchange.fault = `prefer ${exchange.req.headers['prefer']}`
    }
    const delayMs = (fault?.delayMs ?? 0) + (prefer.delayMs ?? 0)
    if (delayMs > 0)
      return this.#pause(delayMs, exchange, state).then(() => this.#answer(op, exchange, state, fault, prefer))
    return this.#answer(op, exchange, state, fault, prefer)
  }

  #answer(
    op: Operation,
    exchange: Exchange,
    state: RequestState,
    fault: Fault | undefined,
    prefer: Preference,
  ): Awaitable<AnimalStore | undefined> {
    const { req, res } = exchange
    const { namespace, journal } = state
    if (res.destroyed) return undefined
    const kind = fault?.fault
    if (kind) {
      // Before the break: the client that sees it finds the request in the journal.
      const status = fault?.status ?? successStatus(op)
      const committing = journal(kind === 'malformed-body' ? status : null)
      if (committing === undefined) breakResponse(kind, req, res, status)
      else return committing.then(() => void breakResponse(kind, req, res, status))
      return undefined
    }
    if (fault?.status !== undefined) {
      throw new HttpError(
        { ...ERRORS.injectedFault, status: fault.status },
        `Fault ${fault.id} injected through POST /__admin/faults answers ${op.operationId} with ${fault.status}`,
        twinHeaders(fault.status, exchange),
      )
    }

    if (op.sunset && namespace.clock.nowMs() >= op.sunset.getTime()) {
      const instead = op.replacement ? `; use ${this.#options.basePath}${op.replacement} instead` : ''
      throw new HttpError(
        ERRORS.gone,
        `${op.method} ${this.#options.basePath}${op.path} was removed on ${op.sunset.toUTCString()}${instead}`,
      )
    }

    if (prefer.code !== undefined) {
      const documented =
        op.responses.includes(String(prefer.code)) || (op.responses.includes('default') && prefer.code >= 400)
      if (!documented) {
        throw new HttpError(
          ERRORS.invalidParameter,
          `Invalid Prefer header: code=${prefer.code} is not a documented response of ${op.operationId} (documented: ${op.responses.join(', ')})`,
        )
      }
      // A documented success is what the operation answers anyway: the request is served normally.
      if (prefer.code >= 400) {
        throw new HttpError(
          templateForStatus(prefer.code),
          `Answered with ${prefer.code} because the request asked for it (Prefer: code=${prefer.code})`,
          twinHeaders(prefer.code, exchange),
        )
      }
    }
    return namespace.store()
  }
}

const ignore = (): void => undefined

/** Keeps a hold for the request, or lets it go when the exchange closed meanwhile (its entry is journaled apart). */
function keep(state: RequestState, hold: NamespaceHold | undefined): boolean {
  if (hold === undefined) return true
  if (state.closed) {
    hold.release().catch(ignore)
    return false
  }
  state.hold = hold
  return true
}
