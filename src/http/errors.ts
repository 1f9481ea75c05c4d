// Every error the sandbox answers is one of these templates, rendered by sendError() alone,
// so each response carries the contract's Error body: { code, message, status }.
import type { ServerResponse } from 'node:http'
import type { components } from '../contract/api-types.js'
import { sendJsonText } from './reply.js'

export type ErrorBody = components['schemas']['Error']

export interface ErrorTemplate {
  readonly status: number
  readonly code: string
  readonly message: string
}

/** The stable values of Error.code, with the status each one carries. */
export const ERRORS = {
  invalidParameter: template(400, 'invalid_parameter', 'A path or query parameter is invalid'),
  invalidBody: template(400, 'invalid_body', 'The request body is missing required fields or has invalid values'),
  malformedJson: template(400, 'malformed_json', 'The request body is not valid JSON'),
  badRequest: template(400, 'bad_request', 'The request is malformed'),
  unauthorized: template(401, 'unauthorized', 'Missing or invalid API key'),
  notFound: template(404, 'not_found', 'The requested resource could not be found'),
  methodNotAllowed: template(405, 'method_not_allowed', 'The method is not allowed on this resource'),
  requestTimeout: template(408, 'request_timeout', 'The request did not arrive in time; the connection is closed'),
  conflict: template(409, 'conflict', 'The request conflicts with the current state'),
  // A create's Idempotency-Key: sent again with another body, or while its first request is being served.
  idempotencyKeyReused: template(
    400,
    'idempotency_key_reused',
    'This Idempotency-Key was sent with another request body: a retry must send the same body',
  ),
  idempotencyKeyInUse: template(
    409,
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still being served: try again once it is answered',
  ),
  gone: template(410, 'gone', 'This operation was removed on its sunset date'),
  payloadTooLarge: template(413, 'payload_too_large', 'The request body is too large'),
  unsupportedMediaType: template(415, 'unsupported_media_type', 'The request body must be application/json'),
  headersTooLarge: template(431, 'headers_too_large', 'The request headers are too large'),
  internal: template(500, 'internal_error', 'The sandbox failed unexpectedly; the cause is in its log'),
  notImplemented: template(501, 'not_implemented', 'This operation exists in the interface but is not specified'),
  storageUnavailable: template(503, 'storage_unavailable', 'The data file could not be written; nothing was stored'),
  // A bound on what the stores keep (MAX_PETS and the others): a create past it is refused whole.
  storeFull: template(
    507,
    'store_full',
    'The store keeps no more pets: a bound of this sandbox is reached; nothing was stored',
  ),
  // A new namespace past MAX_NAMESPACES, when every namespace kept holds data of its own.
  namespaceLimit: template(
    503,
    'namespace_limit',
    'No room for another namespace: every namespace kept holds data of its own',
  ),
  // NAMESPACE_FROM_TRACE with TRACE_NAMESPACE_BASELINE: a new trace's namespace, before its snapshot is made.
  baselineMissing: template(
    503,
    'baseline_missing',
    'The snapshot a new trace namespace starts from (TRACE_NAMESPACE_BASELINE) does not exist',
  ),
  // Every connection but those reserved for health checks and the control API serves an API request.
  serverBusy: template(503, 'server_busy', 'Every connection for the API is serving a request; try again in a moment'),
  // An operation whose x-stability is below MIN_STABILITY: refused by the sandbox's setting.
  unstableOperation: template(
    403,
    'unstable_operation',
    'This operation is below the stability this sandbox accepts (MIN_STABILITY)',
  ),
  // A Host this sandbox does not serve, on the control API or the coverage page (src/http/hosts.ts).
  misdirectedRequest: template(
    421,
    'misdirected_request',
    'This sandbox does not answer the control API under that host name',
  ),
  // One more wait for requests (POST /__admin/requests/await) past its bounds (journal-waits.ts).
  tooManyWaits: template(429, 'too_many_waits', 'As many waits for requests are open as the sandbox keeps'),
  // An Origin /mcp does not accept: a page of another site, or a rebinding one (src/mcp/http.ts).
  forbiddenOrigin: template(403, 'forbidden_origin', 'Pages of this origin may not reach the MCP server'),
  // Any 4xx/5xx status, asked for through the control API (POST /__admin/faults).
  injectedFault: template(500, 'injected_fault', 'This failure was injected through the sandbox control API'),
} satisfies Record<string, ErrorTemplate>

function template(status: number, code: string, message: string): ErrorTemplate {
  return { status, code, message }
}

/** When a client may try again after a 503 (or 429): the disk, or the namespaces, may have room again by then. */
export const RETRY_AFTER: Readonly<Record<string, string>> = { 'Retry-After': '1' }

const SETTINGS_ONLY: ReadonlySet<ErrorTemplate> = new Set([
  ERRORS.unstableOperation,
  ERRORS.misdirectedRequest,
  ERRORS.forbiddenOrigin,
  ERRORS.tooManyWaits,
])

/** The template an answer with `status` is made from (Prefer: code=<status>); injected_fault when none has it. */
export function templateForStatus(status: number): ErrorTemplate {
  // 400 has several templates: the generic one speaks for all of them.
  if (status === ERRORS.badRequest.status) return ERRORS.badRequest
  // A 403, 421 or 429 asked for is not the MIN_STABILITY, Origin or Host refusal, which only the settings
  // answer, nor the control API's refusal of one more wait.
  return (
    Object.values(ERRORS).find((template) => template.status === status && !SETTINGS_ONLY.has(template)) ?? {
      ...ERRORS.injectedFault,
      status,
    }
  )
}

export class HttpError extends Error {
  readonly status: number
  readonly code: string
  readonly headers: Readonly<Record<string, string>>

  constructor(template: ErrorTemplate, message: string = template.message, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'HttpError'
    this.status = template.status
    this.code = template.code
    this.headers = headers
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status }
  }
}

export function errorJson(error: HttpError): string {
  return JSON.stringify(error.toBody())
}

/** The only writer of Error bodies; `headers` go in front of the error's own. */
export function sendError(res: ServerResponse, error: HttpError, headers?: Readonly<Record<string, string>>): void {
  if (res.headersSent) {
    // Too late for a clean answer: end the exchange so the client sees a failure, not a hang.
    res.destroy()
    return
  }
  const all = headers ? { ...headers, ...error.headers } : error.headers
  sendJsonText(
    res,
    error.status,
    errorJson(error),
    undefined,
    res.req.httpVersionMajor === 2 ? withoutConnection(all) : all,
  )
}

/** HTTP/2 has no Connection header (RFC 9113 §8.2.2): a stream ends alone, its connection serves others. */
function withoutConnection(headers: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  if (headers?.['Connection'] === undefined) return headers
  const { Connection: _, ...rest } = headers
  return rest
}
