// The conformance cases, one line each: the operation, the status the contract expects, the
// request, what it shows. The runner (run.ts) sends each one through Prism in front of the sandbox
// and fails on any violation Prism reports; docs/conformance.md says how a case is routed.
import { randomUUID } from 'node:crypto'
import type { operations } from '../src/contract/api-types.js'

export type OperationId = keyof operations

/** Which Authorization header a request carries. */
export type Auth = 'key' | 'lower-case-scheme' | 'none' | 'unknown-key' | 'basic'

export interface CaseRequest {
  readonly method: 'GET' | 'POST'
  /** Relative to the API's base URL. `{created}` is the id of the pet the first 201 case created. */
  readonly path: string
  /** Defaults to `key`: the API key the run was given. */
  readonly auth?: Auth
  /** A JSON value, sent as application/json. */
  readonly json?: unknown
  /** Bytes sent as they are (for bodies that are not a JSON object, or not JSON at all). */
  readonly raw?: string
  readonly contentType?: string
  /** Sent as the Idempotency-Key header. */
  readonly idempotencyKey?: string
}

export interface ConformanceCase {
  readonly intent: string
  readonly operationId: OperationId
  readonly request: CaseRequest
  readonly status: number
  /**
   * `direct`: Prism cannot judge the answer (it re-mocks any upstream 501, answers malformed JSON
   * itself), so the request goes straight to the sandbox and the body is validated here.
   * `lenient`: a valid request that Prism's --errors proxy would refuse itself (it wants the scheme
   * name spelt `Bearer`, though RFC 7235 makes it case-insensitive): sent through the proxy
   * without --errors, so the answer is still judged.
   */
  readonly route?: 'direct' | 'lenient'
  /**
   * The sandbox answers a status the spec does not list for this operation (it is stricter than
   * the interface). Prism can only warn that the status is undocumented; the Error body is
   * validated against the spec's Error schema here instead.
   */
  readonly beyondContract?: true
  /** An extra check on the parsed body: returns what is wrong, or undefined. */
  readonly check?: Check
}

type Check = (body: any, headers: Headers) => string | undefined
type Options = Omit<CaseRequest, 'method' | 'path'> &
  Omit<ConformanceCase, 'intent' | 'operationId' | 'request' | 'status'>

/** A case from its operation, status, request ("METHOD path") and intent. */
function when(operationId: OperationId, status: number, request: string, intent: string, options: Options = {}) {
  const [method, path] = request.split(' ') as [CaseRequest['method'], string]
  const { auth, json, raw, contentType, idempotencyKey, ...rest } = options
  return {
    intent,
    operationId,
    status,
    request: { method, path, auth, json, raw, contentType, idempotencyKey },
    ...rest,
  }
}

const NEW_PET = { name: 'Conformance Cat', categoryId: 3 }
/** New for each run: a deployment checked again never takes a run's key for an earlier one's. */
const IDEMPOTENCY_KEY = `conformance-${randomUUID()}`
/** The largest integer JSON carries exactly: no pet has it. */
const UNKNOWN_ID = Number.MAX_SAFE_INTEGER
const STRICTER = { beyondContract: true } as const

export const CASES: readonly ConformanceCase[] = [
  when('listPets', 200, 'GET /pets', 'lists pets with the default limit', { check: atMost(20) }),
  when('listPets', 200, 'GET /pets?limit=1', 'lists at most one pet with limit=1', { check: atMost(1) }),
  when('listPets', 200, 'GET /pets?limit=100', 'lists up to a hundred pets with limit=100', { check: atMost(100) }),
  ...['available', 'pending', 'sold'].map((status) =>
    when('listPets', 200, `GET /pets?status=${status}`, `filters by status=${status}`, { check: allHave(status) }),
  ),
  when('listPets', 200, 'GET /pets?limit=1', 'accepts the scheme name in any case (bearer)', {
    auth: 'lower-case-scheme',
    route: 'lenient',
  }),
  when('listPets', 401, 'GET /pets', 'refuses a request without Authorization', { auth: 'none', check: challenges }),
  when('listPets', 401, 'GET /pets', 'refuses an unknown API key', { auth: 'unknown-key', check: challenges }),
  when('listPets', 401, 'GET /pets', 'refuses a scheme other than Bearer', { auth: 'basic', check: challenges }),
  when('listPets', 400, 'GET /pets?limit=0', 'refuses limit=0 (stricter than the interface)', STRICTER),
  when('listPets', 400, 'GET /pets?status=lost', 'refuses an unknown status filter (stricter)', STRICTER),

  when('createPet', 201, 'POST /pets', 'adds a pet with a status', {
    json: { ...NEW_PET, status: 'pending' },
    check: created({ ...NEW_PET, status: 'pending' }),
  }),
  when('createPet', 201, 'POST /pets', 'adds a pet without a status', { json: NEW_PET, check: created(NEW_PET) }),
  when('createPet', 201, 'POST /pets', 'ignores a client-sent id and unknown fields', {
    json: { ...NEW_PET, id: UNKNOWN_ID, colour: 'ginger' },
    check: (body) => (body?.id === UNKNOWN_ID ? `the client-sent id ${UNKNOWN_ID} was kept` : undefined),
  }),
  when('createPet', 201, 'POST /pets', 'adds a pet with an Idempotency-Key', {
    json: NEW_PET,
    idempotencyKey: IDEMPOTENCY_KEY,
    check: created(NEW_PET),
  }),
  when('createPet', 201, 'POST /pets', 'answers a retry with the same Idempotency-Key again, adding nothing', {
    json: NEW_PET,
    idempotencyKey: IDEMPOTENCY_KEY,
    check: (body, headers) =>
      created(NEW_PET)(body, headers) ??
      (headers.get('idempotent-replayed') === 'true' ? undefined : 'the retry is not marked Idempotent-Replayed'),
  }),
  when('createPet', 400, 'POST /pets', 'refuses an Idempotency-Key sent again with another body', {
    json: { ...NEW_PET, categoryId: 4 },
    idempotencyKey: IDEMPOTENCY_KEY,
    check: (body) => (body?.code === 'idempotency_key_reused' ? undefined : `code ${body?.code}`),
  }),
  when('createPet', 400, 'POST /pets', 'refuses a body without name', { json: { categoryId: 3 } }),
  when('createPet', 400, 'POST /pets', 'refuses a body without categoryId', { json: { name: 'Rex' } }),
  when('createPet', 400, 'POST /pets', 'refuses a name that is not a string', { json: { name: 42, categoryId: 3 } }),
  when('createPet', 400, 'POST /pets', 'refuses a categoryId sent as a string', {
    json: { name: 'Rex', categoryId: '7' },
  }),
  when('createPet', 400, 'POST /pets', 'refuses a fractional categoryId', { json: { name: 'Rex', categoryId: 1.5 } }),
  when('createPet', 400, 'POST /pets', 'refuses a categoryId beyond 2^53-1', {
    raw: '{"name":"Rex","categoryId":9007199254740993}',
  }),
  when('createPet', 400, 'POST /pets', 'refuses an unknown status', { json: { ...NEW_PET, status: 'lost' } }),
  when('createPet', 400, 'POST /pets', 'refuses a status of null', { json: { ...NEW_PET, status: null } }),
  when('createPet', 400, 'POST /pets', 'refuses a JSON array', { json: [NEW_PET] }),
  when('createPet', 400, 'POST /pets', 'refuses a JSON number', { json: 42 }),
  when('createPet', 400, 'POST /pets', 'refuses a JSON string (Prism forwards it unquoted)', { json: 'Rex' }),
  when('createPet', 400, 'POST /pets', 'refuses a JSON null (Prism forwards no body)', { raw: 'null' }),
  when('createPet', 400, 'POST /pets', 'refuses an empty body', { raw: '' }),
  when('createPet', 400, 'POST /pets', 'refuses malformed JSON', {
    raw: '{"name":',
    route: 'direct',
  }),
  when('createPet', 415, 'POST /pets', 'refuses a body that is not JSON (415, not in the interface)', {
    raw: 'name=Rex',
    contentType: 'text/plain',
    ...STRICTER,
  }),
  when('createPet', 401, 'POST /pets', 'refuses a request without Authorization', {
    json: NEW_PET,
    auth: 'none',
    check: challenges,
  }),

  // getPet is deprecated: every answer says so.
  when('getPet', 200, 'GET /pets/{created}', 'fetches the pet just created', { check: deprecated }),
  when('getPet', 401, 'GET /pets/{created}', 'refuses a request without Authorization', {
    auth: 'none',
    check: (body, headers) => challenges(body, headers) ?? deprecated(body, headers),
  }),
  when('getPet', 404, `GET /pets/${UNKNOWN_ID}`, 'answers 404 for an unknown id', { check: deprecated }),
  when('getPet', 400, 'GET /pets/abc', 'refuses an id that is not an integer (stricter than the interface)', STRICTER),

  // listOrders: declared with only a `default` response.
  when('listOrders', 401, 'GET /store/orders', 'refuses a request without Authorization', {
    auth: 'none',
    check: challenges,
  }),
  when('listOrders', 501, 'GET /store/orders', 'answers 501: declared, not specified', { route: 'direct' }),
]

function atMost(limit: number): Check {
  return (body) =>
    Array.isArray(body) && body.length > limit ? `expected at most ${limit} pets, got ${body.length}` : undefined
}

function allHave(status: string): Check {
  return (body) => {
    const other = Array.isArray(body) ? body.find((pet: { status?: string }) => pet.status !== status) : undefined
    return other ? `the filter let through ${JSON.stringify(other)}` : undefined
  }
}

function created(sent: { name: string; categoryId: number; status?: string }): Check {
  return (body, headers) => {
    const echoed =
      body?.name === sent.name &&
      body?.categoryId === sent.categoryId &&
      (sent.status === undefined || body?.status === sent.status)
    if (!echoed) return `the created pet ${JSON.stringify(body)} does not carry what was sent (${JSON.stringify(sent)})`
    const location = headers.get('location')
    return location?.endsWith(`/pets/${body.id}`)
      ? undefined
      : `Location is ${JSON.stringify(location)}, expected one ending in /pets/${body.id}`
  }
}

/** RFC 6750: a 401 names the scheme to use. */
function challenges(_body: unknown, headers: Headers): string | undefined {
  return /^bearer\b/i.test(headers.get('www-authenticate') ?? '')
    ? undefined
    : `WWW-Authenticate is ${JSON.stringify(headers.get('www-authenticate'))}, expected Bearer`
}

/**
 * getPet is deprecated: every answer says since when (RFC 9745, a structured date such as
 * `@1767225600`) and names the removal date (RFC 8594). Prism adds `Deprecation: true` to answers
 * of a deprecated operation that lack it, so only the RFC 9745 form proves it came from upstream.
 */
function deprecated(_body: unknown, headers: Headers): string | undefined {
  if (!/^@\d+$/.test(headers.get('deprecation') ?? ''))
    return `Deprecation is ${JSON.stringify(headers.get('deprecation'))}, expected an RFC 9745 date such as @1767225600`
  return headers.get('sunset') ? undefined : 'the Sunset header is missing'
}
