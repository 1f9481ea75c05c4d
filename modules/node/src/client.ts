/**
 * The control client of any sandbox's URL: the control API (`/__admin`) through openapi-fetch over the
 * types generated from spec/admin.openapi.yaml (admin-types.ts), every operation `api.<METHOD>(path)`.
 * A handle on one namespace sends its calls there, and gives the headers of the test's own API calls.
 *
 * @example
 * import { AnimalStoreControlClient } from 'animal-store-sandbox-testcontainers/client'
 *
 * const sandbox = new AnimalStoreControlClient('http://localhost:32768', { adminToken, apiKey })
 * const t1 = sandbox.namespace('t1')
 * await t1.api.POST('/reset')
 * await fetch(`${t1.apiBaseUrl}/pets`, { headers: t1.apiHeaders })
 * const calls = await t1.countRequests({ operationId: 'listPets' })
 * await t1.assertVerified([{ operationId: 'listPets', count: 1 }], { strict: true })
 * await sandbox.api.DELETE('/namespaces/{name}', { params: { path: { name: 't1' } } })
 *
 * @module
 */
import createClient, { type Client } from 'openapi-fetch'
import type { components, operations, paths } from './admin-types.js'
import { httpFetch } from './transport.js'

export * from './bundle.js'

export type { components, operations, paths }
/** The control API: `api.GET('/requests', { params: { query } })`, … as spec/admin.openapi.yaml has it. */
export type ControlApi = Client<paths>
type Schemas = components['schemas']
export type CoverageReport = Schemas['CoverageReport']
export type Expectation = Schemas['Expectation']
export type JournalEntry = Schemas['JournalEntry']
export type VerifyResult = Schemas['VerifyResult']
type Query<O extends keyof operations> = Omit<NonNullable<operations[O]['parameters']['query']>, 'namespace'>
/** The journal's filters, as listRequests takes them. */
export type RequestFilter = Omit<Query<'listRequests'>, 'limit' | 'after'>
export type CoverageOptions = Omit<Query<'getCoverage'>, 'format'>
type VerifyBody = NonNullable<operations['verify']['requestBody']>['content']['application/json']
export type VerifyOptions = Query<'verify'> & Partial<Omit<VerifyBody, 'expectations'>>
export type AwaitResult = Schemas['AwaitResult']
export type StrayReport = Schemas['StrayReport']
export type StrayCall = Schemas['StrayCall']
type AwaitBody = NonNullable<operations['awaitRequests']['requestBody']>['content']['application/json']
/** The wait's deadline (`timeoutMs`, at most 30 s), `quietMs`, and verify's options. */
export type AwaitOptions = Query<'awaitRequests'> & Partial<Omit<AwaitBody, 'expectations'>>

/** The documented defaults of a sandbox started without settings. */
export const DEFAULT_ADMIN_TOKEN = 'sandbox-admin-token'
export const DEFAULT_API_KEY = 'sandbox-api-key'
const NAMESPACE_HEADER = 'x-sandbox-namespace'
/** The sandbox's own resources rather than a namespace's: their calls take no `namespace`. */
const SANDBOX_WIDE = /^\/__admin\/(snapshots|namespaces|tls)/

/** A call the sandbox refused: its status, and its Error body's code and message. */
export class AnimalStoreControlError extends Error {
  /** e.g. `POST /faults`: the call, by its method and the spec's path. */
  readonly operation: string
  readonly status: number
  readonly code: string
  constructor(operation: string, status: number, code: string, message: string) {
    super(`${operation}: ${message}`)
    this.name = 'AnimalStoreControlError'
    this.operation = operation
    this.status = status
    this.code = code
  }
}

/** An opt-in assertion that failed: the message lists what is missing, one line each. */
export class AnimalStoreAssertionError extends Error {
  readonly problems: readonly string[]
  constructor(problems: readonly string[], summary?: string) {
    super(summary === undefined ? problems.join('\n') : [summary, ...problems.map((p) => `  - ${p}`)].join('\n'))
    this.name = 'AnimalStoreAssertionError'
    this.problems = problems
  }
}

export interface ControlClientOptions {
  /** The control API's token (ADMIN_TOKEN); the documented default otherwise. */
  readonly adminToken?: string
  /** The API key the namespace handles give tests (API_KEYS); the documented default otherwise. */
  readonly apiKey?: string
  /** The CA (PEM) an https origin's certificate must chain to, instead of the system's (a sandbox withTls()'s). */
  readonly ca?: string
  /** A fetch to send the calls with (a proxy, a recorder); node:http(s) over kept-alive connections by default. */
  readonly fetch?: (request: Request) => Promise<Response>
}

/** A handle on one namespace (the default one when `name` is undefined). */
export class NamespaceControl {
  readonly name: string | undefined
  /** The control API, its calls acting on this namespace but for the sandbox-wide ones; a refusal throws AnimalStoreControlError. */
  readonly api: ControlApi
  readonly #origin: string
  readonly #apiKey: string

  constructor(origin: string, options: ControlClientOptions, name?: string) {
    this.name = name
    this.#origin = origin
    this.#apiKey = options.apiKey ?? DEFAULT_API_KEY
    this.api = createClient<paths>({
      baseUrl: `${origin}/__admin`,
      headers: { authorization: `Bearer ${options.adminToken ?? DEFAULT_ADMIN_TOKEN}` },
      fetch: options.fetch ?? httpFetch({ ca: options.ca }),
    })
    this.api.use({
      onRequest: ({ request }) => {
        const url = new URL(request.url)
        if (name === undefined || SANDBOX_WIDE.test(url.pathname) || url.searchParams.has('all')) return request
        url.searchParams.set('namespace', name)
        return new Request(url, request)
      },
      onResponse: async ({ request, response, schemaPath }) => {
        if (response.ok) return response
        const text = await response.text()
        const body = parseJson(text) as { code?: string; message?: string } | undefined
        const operation = `${request.method} ${schemaPath}`
        throw new AnimalStoreControlError(
          operation,
          response.status,
          body?.code ?? 'unknown',
          body?.message ?? text.slice(0, 500),
        )
      },
    })
  }

  /** e.g. `http://localhost:32768/v1`: the API's base URL, for `${apiBaseUrl}/pets`. */
  get apiBaseUrl(): string {
    return `${this.#origin}/v1`
  }

  /** The headers that make an API request use this namespace, with the API key. */
  get apiHeaders(): Record<string, string> {
    const auth = { authorization: `Bearer ${this.#apiKey}` }
    return this.name === undefined ? auth : { ...auth, [NAMESPACE_HEADER]: this.name }
  }

  /** How many requests match every filter given: the journal's cheapest check (no entry is sent). */
  async countRequests(filter: RequestFilter = {}): Promise<number> {
    return (await ok(this.api.GET('/requests', { params: { query: { ...filter, limit: 0 } } }))).count
  }

  /** Every request that matches the filter, oldest first, fetched `limit` at a time (100 by default) as the loop goes on. */
  async *allRequests(filter: RequestFilter = {}, limit?: number): AsyncGenerator<JournalEntry> {
    if (limit === 0) throw new TypeError('allRequests: limit must be at least 1')
    let after: number | undefined
    do {
      const page = await ok(this.api.GET('/requests', { params: { query: { ...filter, limit, after } } }))
      yield* page.entries
      after = page.next ?? undefined
    } while (after !== undefined)
  }

  /** Rejects with an AnimalStoreAssertionError, in the sandbox's words (verify's `message`), unless the calls made are those expected. */
  async assertVerified(expectations: readonly Expectation[], options: VerifyOptions = {}): Promise<VerifyResult> {
    const { traceId, strict = false } = options
    const body = { strict, expectations: [...expectations] }
    const result = await ok(this.api.POST('/verify', { params: { query: { traceId } }, body }))
    if (!result.passed) throw new AnimalStoreAssertionError([result.message])
    return result
  }

  /** Waits until the journal holds the calls expected, `quietMs` of quiet, or `timeoutMs` (10 s, at most 30 s); passed or not. */
  async awaitRequests(expectations: readonly Expectation[], options: AwaitOptions = {}): Promise<AwaitResult> {
    const { traceId, strict = false, timeoutMs = 10_000, ...wait } = options
    const body = { ...wait, strict, timeoutMs, expectations: [...expectations] }
    return ok(this.api.POST('/requests/await', { params: { query: { traceId } }, body }))
  }

  /** awaitRequests that rejects with an AnimalStoreAssertionError, in the sandbox's words, unless it passed. */
  async assertAwaited(expectations: readonly Expectation[], options: AwaitOptions = {}): Promise<AwaitResult> {
    const result = await this.awaitRequests(expectations, options)
    if (!result.passed)
      throw new AnimalStoreAssertionError([
        `${result.message} (the wait ended by ${result.endedBy} after ${result.waitedMs} ms)`,
      ])
    return result
  }

  /** The calls no running test made that this namespace's test caused (every namespace's, on the default handle). */
  async strayCalls(): Promise<StrayReport> {
    return ok(this.api.GET('/requests/strays', { params: { query: { test: this.name } } }))
  }

  /** Rejects with an AnimalStoreAssertionError, in the sandbox's words, naming each stray call of this namespace's test: a late job's call after its end, say. */
  async assertNoStrayCalls(): Promise<StrayReport> {
    const report = await this.strayCalls()
    if (report.count > 0) throw new AnimalStoreAssertionError([report.message])
    return report
  }

  /** Rejects, in the sandbox's words, unless every reachable response of the named (or all) operations was exercised. */
  async assertAllResponsesExercised(operationIds?: readonly string[], options: CoverageOptions = {}) {
    const report = await this.#coverage(options)
    const unknown = (operationIds ?? []).filter((id) => !report.operations.some((op) => op.operationId === id))
    if (unknown.length > 0)
      throw new TypeError(
        `assertAllResponsesExercised: no operation ${unknown.join(', ')} (the API has ${report.operations.map((op) => op.operationId).join(', ')})`,
      )
    const asked =
      operationIds === undefined ? [report] : report.operations.filter((op) => operationIds.includes(op.operationId))
    const failed = asked.filter((scope) => !scope.complete)
    if (failed.length > 0) throw new AnimalStoreAssertionError(failed.map((scope) => scope.message))
    return report
  }

  /** Rejects with an AnimalStoreAssertionError, in the sandbox's words, listing each deprecated operation called, its sunset and replacement. */
  async assertNoDeprecatedCalls(options: CoverageOptions = {}): Promise<CoverageReport> {
    const report = await this.#coverage(options)
    if (report.deprecatedCalls.length > 0) throw new AnimalStoreAssertionError([report.deprecatedCallsMessage])
    return report
  }

  /** Rejects with an AnimalStoreAssertionError, in the sandbox's words, listing each experimental or beta operation called. */
  async assertNoUnstableCalls(options: CoverageOptions = {}): Promise<CoverageReport> {
    const report = await this.#coverage(options)
    if (report.unstableCalls.length > 0) throw new AnimalStoreAssertionError([report.unstableCallsMessage])
    return report
  }

  async #coverage(query: CoverageOptions): Promise<CoverageReport> {
    // The JSON report (the Markdown one is a string).
    return (await ok(this.api.GET('/coverage', { params: { query: { ...query, format: 'json' } } }))) as CoverageReport
  }
}

/** The control API of one sandbox; its own calls act on the default namespace. */
export class AnimalStoreControlClient extends NamespaceControl {
  readonly #options: ControlClientOptions
  readonly #origin: string

  /** @param origin the sandbox's origin, e.g. `http://localhost:32768` (a trailing /v1 or / is ignored) */
  constructor(origin: string, options: ControlClientOptions = {}) {
    const { protocol, host } = new URL(origin)
    super(`${protocol}//${host}`, options)
    this.#origin = `${protocol}//${host}`
    // One connection pool for the client and its handles, unless a fetch of the caller's is given.
    this.#options = { ...options, fetch: options.fetch ?? httpFetch({ ca: options.ca }) }
  }

  /** A handle on the namespace `name`: nothing is sent until a call is made (a reset creates it). */
  namespace(name: string): NamespaceControl {
    return new NamespaceControl(this.#origin, this.#options, name)
  }
}

/** The data of an answer: a refusal has already thrown (the handle's middleware). */
export async function ok<T>(call: Promise<{ data?: T }>): Promise<T> {
  const { data } = await call
  return data as T
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
