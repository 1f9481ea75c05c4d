// The conformance cases, one line each: what it shows, the request, the status the contract
// expects. The runner (run.ts) sends each one through Prism in front of the sandbox and fails on
// any violation Prism reports; see the README's "Conformance" section for how a case is routed.
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
}

export interface ConformanceCase {
  readonly intent: string
  readonly operationId: OperationId
  readonly request: CaseRequest
  readonly status: number
  /**
   * `prism-answers`: Prism rejects this request itself and never forwards it (status `prismStatus`);
   * the same request is then sent straight to the sandbox, which must answer `status` with an Error.
   * `direct`: Prism cannot judge the answer (it re-mocks any upstream 501), so the request goes
   * straight to the sandbox and the body is validated against the spec's response schema here.
   * `lenient`: a valid request that Prism's --errors proxy would refuse itself (it wants the scheme
   * name spelt `Bearer`, though RFC 7235 makes it case-insensitive): sent through the proxy
   * without --errors, so the answer is still judged.
   */
  readonly route?: 'prism-answers' | 'direct' | 'lenient'
  readonly prismStatus?: number
  /**
   * The sandbox answers a status the spec does not list for this operation (it is stricter than
   * the interface). Prism can only warn that the status is undocumented; the Error body is
   * validated against the spec's Error schema here instead.
   */
  readonly beyondContract?: true
  /** An extra check on the parsed body: returns what is wrong, or undefined. */
  readonly check?: (body: any, headers: Headers) => string | undefined
}

const NEW_PET = { name: 'Conformance Cat', categoryId: 3 }
/** The largest integer JSON carries exactly: no pet has it. */
const UNKNOWN_ID = Number.MAX_SAFE_INTEGER

export const CASES: readonly ConformanceCase[] = [
  // listPets
  {
    intent: 'lists pets with the default limit',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets' },
    status: 200,
    check: atMost(20),
  },
  {
    intent: 'lists at most one pet with limit=1',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?limit=1' },
    status: 200,
    check: atMost(1),
  },
  {
    intent: 'lists up to a hundred pets with limit=100',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?limit=100' },
    status: 200,
    check: atMost(100),
  },
  {
    intent: 'filters by status=available',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?status=available' },
    status: 200,
    check: allHaveStatus('available'),
  },
  {
    intent: 'filters by status=pending',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?status=pending' },
    status: 200,
    check: allHaveStatus('pending'),
  },
  {
    intent: 'filters by status=sold',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?status=sold' },
    status: 200,
    check: allHaveStatus('sold'),
  },
  {
    intent: 'accepts the scheme name in any case (bearer)',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?limit=1', auth: 'lower-case-scheme' },
    status: 200,
    route: 'lenient',
  },
  {
    intent: 'refuses a request without Authorization',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets', auth: 'none' },
    status: 401,
    check: challenges,
  },
  {
    intent: 'refuses an unknown API key',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets', auth: 'unknown-key' },
    status: 401,
    check: challenges,
  },
  {
    intent: 'refuses a scheme other than Bearer',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets', auth: 'basic' },
    status: 401,
    check: challenges,
  },
  {
    intent: 'refuses limit=0 (stricter than the interface)',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?limit=0' },
    status: 400,
    beyondContract: true,
  },
  {
    intent: 'refuses an unknown status filter (stricter than the interface)',
    operationId: 'listPets',
    request: { method: 'GET', path: '/pets?status=lost' },
    status: 400,
    beyondContract: true,
  },

  // createPet
  {
    intent: 'adds a pet with a status',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { ...NEW_PET, status: 'pending' } },
    status: 201,
    check: created({ ...NEW_PET, status: 'pending' }),
  },
  {
    intent: 'adds a pet without a status',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: NEW_PET },
    status: 201,
    check: created(NEW_PET),
  },
  {
    intent: 'ignores a client-sent id and unknown fields',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { ...NEW_PET, id: UNKNOWN_ID, colour: 'ginger' } },
    status: 201,
    check: idIsNot(UNKNOWN_ID),
  },
  {
    intent: 'refuses a body without name',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { categoryId: 3 } },
    status: 400,
  },
  {
    intent: 'refuses a body without categoryId',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { name: 'Rex' } },
    status: 400,
  },
  {
    intent: 'refuses a name that is not a string',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { name: 42, categoryId: 3 } },
    status: 400,
  },
  {
    intent: 'refuses a categoryId sent as a string',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { name: 'Rex', categoryId: '7' } },
    status: 400,
  },
  {
    intent: 'refuses a categoryId that is not an integer',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { name: 'Rex', categoryId: 1.5 } },
    status: 400,
  },
  {
    intent: 'refuses a categoryId beyond 2^53-1',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', raw: '{"name":"Rex","categoryId":9007199254740993}' },
    status: 400,
  },
  {
    intent: 'refuses an unknown status',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { ...NEW_PET, status: 'lost' } },
    status: 400,
  },
  {
    intent: 'refuses a status of null',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { ...NEW_PET, status: null } },
    status: 400,
  },
  {
    intent: 'refuses a JSON array',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: [NEW_PET] },
    status: 400,
  },
  {
    intent: 'refuses a JSON number',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: 42 },
    status: 400,
  },
  {
    intent: 'refuses a JSON string (Prism forwards it unquoted)',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: 'Rex' },
    status: 400,
  },
  {
    intent: 'refuses a JSON null (Prism forwards no body)',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', raw: 'null' },
    status: 400,
  },
  {
    intent: 'refuses an empty body',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', raw: '' },
    status: 400,
  },
  {
    intent: 'refuses malformed JSON',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', raw: '{"name":' },
    status: 400,
    route: 'prism-answers',
    prismStatus: 400,
  },
  {
    intent: 'refuses a body that is not JSON (415, not in the interface)',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', raw: 'name=Rex', contentType: 'text/plain' },
    status: 415,
    beyondContract: true,
  },
  {
    intent: 'refuses a request without Authorization',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: NEW_PET, auth: 'none' },
    status: 401,
    check: challenges,
  },
  {
    intent: 'refuses an unknown API key',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: NEW_PET, auth: 'unknown-key' },
    status: 401,
    check: challenges,
  },

  // getPet (deprecated)
  {
    intent: 'fetches the pet just created',
    operationId: 'getPet',
    request: { method: 'GET', path: '/pets/{created}' },
    status: 200,
    check: deprecated,
  },
  {
    intent: 'refuses a request without Authorization',
    operationId: 'getPet',
    request: { method: 'GET', path: '/pets/{created}', auth: 'none' },
    status: 401,
    check: all(challenges, deprecated),
  },
  {
    intent: 'answers 404 for an unknown id',
    operationId: 'getPet',
    request: { method: 'GET', path: `/pets/${UNKNOWN_ID}` },
    status: 404,
    check: deprecated,
  },
  {
    intent: 'refuses an id that is not an integer (stricter than the interface)',
    operationId: 'getPet',
    request: { method: 'GET', path: '/pets/abc' },
    status: 400,
    beyondContract: true,
  },

  // listOrders: declared with only a `default` response
  {
    intent: 'refuses a request without Authorization',
    operationId: 'listOrders',
    request: { method: 'GET', path: '/store/orders', auth: 'none' },
    status: 401,
    check: challenges,
  },
  {
    intent: 'answers 501: declared, not specified',
    operationId: 'listOrders',
    request: { method: 'GET', path: '/store/orders' },
    status: 501,
    route: 'direct',
  },
]

function all(...checks: Array<NonNullable<ConformanceCase['check']>>): NonNullable<ConformanceCase['check']> {
  return (body, headers) => checks.map((check) => check(body, headers)).find((problem) => problem !== undefined)
}

function atMost(limit: number) {
  return (body: unknown): string | undefined =>
    Array.isArray(body) && body.length > limit ? `expected at most ${limit} pets, got ${body.length}` : undefined
}

function allHaveStatus(status: string) {
  return (body: unknown): string | undefined => {
    const other = Array.isArray(body) ? body.find((pet: { status?: string }) => pet.status !== status) : undefined
    return other ? `the filter let through ${JSON.stringify(other)}` : undefined
  }
}

function created(sent: { name: string; categoryId: number; status?: string }) {
  return (body: any, headers: Headers): string | undefined => {
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

function idIsNot(id: number) {
  return (body: any): string | undefined => (body?.id === id ? `the client-sent id ${id} was kept` : undefined)
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
