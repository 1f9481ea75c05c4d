// The one operation pipeline, for the API and the control API alike:
//
//   match the path → 404 / 405 → the operation's own headers → auth → refusal below
//   MIN_STABILITY (403) → enter (test control) → validation from the spec → handler → reply
//
// A step returns a promise only when it must wait (a body, a delay, a durable write), so a
// request without a body is answered within its own turn.
import { ERRORS, HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import type { Reply } from '../http/reply.js'
import { parseQuery, type Query } from '../http/url.js'
import { STABILITIES, type Operation, type SpecOperations, type Stability } from '../contract/types.js'
import { authenticate, type Credential, type KeyRing } from './auth.js'
import { OperationRoutes } from './routes.js'
import { validateRequest, type ValidInput } from './validate.js'

/** A value, or a promise of one when it had to wait. */
export type Awaitable<T> = T | Promise<T>

/** One function per operationId: input that validation has checked in, what to send out. */
export type Handler<Context> = (input: ValidInput, context: Context) => Awaitable<Reply>

/** An operation as openapi-typescript writes it (src/contract/api-types.ts, src/contract/admin-types.ts). */
interface GeneratedOperation {
  readonly parameters: { readonly query?: unknown; readonly path?: unknown; readonly header?: unknown }
  readonly requestBody?: unknown
}

/** What validation hands an operation's handler, typed from the spec. */
export interface InputOf<Op extends GeneratedOperation> {
  readonly path: NonNullable<Op['parameters']['path']>
  readonly query: NonNullable<Op['parameters']['query']>
  readonly header: NonNullable<Op['parameters']['header']>
  readonly body: Op['requestBody'] extends { content: { 'application/json': infer Body } } | undefined
    ? Body
    : undefined
}

/** A handler for each operation of a generated `operations` interface, each with its typed input. */
export type HandlersOf<Operations, Context> = {
  readonly [Id in keyof Operations]: (
    input: Operations[Id] extends GeneratedOperation ? InputOf<Operations[Id]> : never,
    context: Context,
  ) => Awaitable<Reply>
}

/** Typed handlers as the pipeline calls them: the one place the inputs' types meet values validated from their spec. */
export function byOperationId<Operations, Context>(
  handlers: HandlersOf<Operations, Context>,
): Readonly<Record<string, Handler<Context>>> {
  return handlers as unknown as Readonly<Record<string, Handler<Context>>>
}

export interface PipelineOptions<Context> {
  readonly spec: SpecOperations
  readonly handlers: Readonly<Record<string, Handler<Context>>>
  readonly keys: KeyRing
  /** What the bearer token is called in a 401 (the API key by default). */
  readonly credential?: Credential
  /** After auth, before validation: the handler's context, or undefined when it answered (a fault). */
  readonly enter: (op: Operation, exchange: Exchange) => Awaitable<Context | undefined>
  /** Answers an Error body, with the operation's own headers (Exchange.headers). */
  readonly answerError: (exchange: Exchange, error: unknown) => void
  /** Operations whose x-stability is below this one are refused with 403 (MIN_STABILITY); all are served by default. */
  readonly minStability?: Stability
  /** Bodies nested deeper are refused with a 400 (MAX_JSON_DEPTH); any depth by default. */
  readonly maxJsonDepth?: number
}

/** Serves the request when an operation of the spec lives at its path; false when none does. */
export type Pipeline = (exchange: Exchange) => boolean

export function createPipeline<Context>({
  spec,
  handlers,
  keys,
  credential,
  enter,
  answerError,
  minStability = STABILITIES[0],
  maxJsonDepth,
}: PipelineOptions<Context>): Pipeline {
  for (const op of spec.operations)
    if (!(op.operationId in handlers)) throw new Error(`${spec.basePath}: operation ${op.operationId} has no handler`)
  const routes = new OperationRoutes(spec.operations, spec.basePath)
  const ownHeaders = new Map(spec.operations.map((op) => [op, ownHeadersOf(op, spec.basePath)]))
  const refused = new Map(
    spec.operations
      .filter((op) => STABILITIES.indexOf(op.stability) < STABILITIES.indexOf(minStability))
      .map((op) => [
        op,
        `${op.operationId} is marked x-stability: ${op.stability}, and this sandbox serves only operations at least ${minStability} (MIN_STABILITY=${minStability})`,
      ]),
  )

  return (exchange) => {
    const { req, path: pathname, search } = exchange
    const match = routes.match(pathname)
    if (match === undefined) return false
    try {
      // HEAD is GET without the body: node:http leaves the body out of a HEAD answer itself.
      const op =
        match.at.byMethod.get(req.method ?? '') ?? (req.method === 'HEAD' ? match.at.byMethod.get('GET') : undefined)
      if (!op)
        throw new HttpError(
          ERRORS.methodNotAllowed,
          `${req.method} is not allowed on ${pathname}; allowed: ${match.at.allow}`,
          { Allow: match.at.allow },
        )
      exchange.operationId = op.operationId
      exchange.headers = ownHeaders.get(op)
      exchange.allow = match.at.allow
      if (op.secured) authenticate(req, keys, credential)
      const refusal = refused.get(op)
      if (refusal !== undefined) throw new HttpError(ERRORS.unstableOperation, refusal)
      const handle = handlers[op.operationId] as Handler<Context>
      const answered = then(enter(op, exchange), (context) => {
        if (context === undefined) return // a fault has answered
        const query = search ? parseQuery(search) : NO_QUERY
        return then(validateRequest(op, req, match.params, query, maxJsonDepth), (input) =>
          then(handle(input, context), (reply) => exchange.reply(reply)),
        )
      })
      if (answered instanceof Promise) answered.catch((error: unknown) => answerError(exchange, error))
    } catch (error) {
      answerError(exchange, error)
    }
    return true
  }
}

const NO_QUERY: Query = new Map()

/** `next(value)`, at once for a value, after it settles for a promise. */
export function then<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value)
}

/**
 * For every response: X-Stability for an experimental or beta operation; RFC 9745 Deprecation,
 * RFC 8594 Sunset and a Link to the replacement for a deprecated one. Built once.
 */
function ownHeadersOf(op: Operation, basePath: string): Readonly<Record<string, string>> | undefined {
  if (!op.deprecated && op.stability === 'stable') return undefined
  const headers: Record<string, string> = {}
  if (op.stability !== 'stable') headers['X-Stability'] = op.stability
  if (!op.deprecated) return Object.freeze(headers)
  if (op.deprecatedSince) headers['Deprecation'] = `@${Math.floor(op.deprecatedSince.getTime() / 1000)}`
  if (op.sunset) headers['Sunset'] = op.sunset.toUTCString()
  if (op.replacement) headers['Link'] = `<${basePath}${op.replacement}>; rel="successor-version"`
  return Object.freeze(headers)
}
