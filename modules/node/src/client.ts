/**
 * The control client: every operation of the sandbox's control API (`/__admin`,
 * spec/admin.openapi.yaml), typed from that spec, against any sandbox's URL: a container, a
 * `docker run`, a sandbox shared by a whole suite. A handle scoped to one namespace gives a test
 * the same calls for its namespace, and what its own HTTP client needs to call the API there.
 *
 * @example
 * import { AnimalStoreControlClient } from 'animal-store-sandbox/client'
 *
 * const sandbox = new AnimalStoreControlClient('http://localhost:32768')
 * const t1 = sandbox.namespace('t1')
 * await t1.reset()
 * await fetch(`${t1.apiBaseUrl}/pets`, { headers: t1.apiHeaders })
 * const calls = await t1.countRequests({ operationId: 'listPets' })
 * await t1.assertVerified([{ operationId: 'listPets', count: 1 }], { strict: true })
 * await t1.assertNoDeprecatedCalls()
 * await sandbox.deleteNamespace('t1')
 *
 * @module
 */
import type { components, operations, paths } from './admin-types.js'
import { fetchTransport, httpTransport, type Transport } from './transport.js'

type Schemas = components['schemas']
export type Pet = Schemas['Pet']
export type StateSummary = Schemas['StateSummary']
export type Cleared = Schemas['Cleared']
export type Clock = Schemas['Clock']
/** An operationId of the Animal Store API (spec/openapi.yaml; a test holds this list to it). */
export type ApiOperationId = 'listPets' | 'createPet' | 'getPet' | 'listOrders'
/** What the journal says a request matched: an operation, or `unmatched`. */
export type OperationId = ApiOperationId | 'unmatched'
/** An armed fault. */
export type Fault = Omit<Schemas['Fault'], 'operationId'> & { operationId: ApiOperationId }
/** A fault to arm; `after` defaults to 0. */
export type NewFault = Omit<Schemas['NewFault'], 'after' | 'operationId'> & {
  operationId: ApiOperationId
  after?: number
}
export type JournalEntry = Omit<Schemas['JournalEntry'], 'operationId'> & { operationId: OperationId }
export type JournalPage = Omit<Schemas['JournalPage'], 'entries'> & { entries: JournalEntry[] }
export type NamespaceList = operations['listNamespaces']['responses'][200]['content']['application/json']
export type Deleted = operations['deleteNamespace']['responses'][200]['content']['application/json']
type JournalQuery = Query<'listRequests'>
/** Filters of listRequests: every one given must match. `since` may be a Date. */
export type RequestFilter = Omit<JournalQuery, 'since' | 'operationId' | 'limit' | 'after'> & {
  operationId?: OperationId
  since?: Date | string
}
/**
 * Which page of the journal: at most `limit` entries (0 to 1000; 100 when omitted, 0 for the count
 * alone), those after the entry `after`: the previous page's `next` (null or omitted: the oldest).
 */
export type PageOptions = Pick<JournalQuery, 'limit'> & { after?: number | null }
export type Snapshot = Schemas['Snapshot']
export type SnapshotList = operations['listSnapshots']['responses'][200]['content']['application/json']
export type SnapshotDeleted = operations['deleteSnapshot']['responses'][200]['content']['application/json']
export type ResetOptions = NonNullable<operations['reset']['requestBody']>['content']['application/json']
export type CoverageReport = Schemas['CoverageReport']
export type OperationCoverage = Schemas['OperationCoverage']
/** What a test expects of the journal: calls of `operationId`, how many, with what body and headers. */
export type Expectation = Omit<Schemas['Expectation'], 'operationId'> & { operationId: OperationId }
export type VerifyResult = Schemas['VerifyResult']
export type Pact = Schemas['Pact']
export type DriftReport = Schemas['DriftReport']
export type Drift = Schemas['Drift']
// The options below are the spec's parameters (their documentation is the spec's): a parameter
// the spec gains is an option at once.
/** The query parameters of an operation, but the namespace (a handle's). */
type Query<O extends keyof operations> = Omit<NonNullable<operations[O]['parameters']['query']>, 'namespace'>
export type PactOptions = Query<'exportPact'>
export type CoverageOptions = Omit<Query<'getCoverage'>, 'format'>
type VerifyBody = NonNullable<operations['verify']['requestBody']>['content']['application/json']
export type VerifyOptions = Query<'verify'> & Partial<Omit<VerifyBody, 'expectations'>>

/** The documented defaults of a sandbox started without settings. */
export const DEFAULT_ADMIN_TOKEN = 'sandbox-admin-token'
export const DEFAULT_API_KEY = 'sandbox-api-key'
const CONTROL_PATH = '/__admin'
const API_PATH = '/v1'
const NAMESPACE_HEADER = 'X-Sandbox-Namespace'

/** A call the sandbox refused: its status, and its Error body's code and message. */
export class AnimalStoreControlError extends Error {
  readonly operationId: string
  readonly status: number
  readonly code: string
  constructor(operationId: string, status: number, code: string, message: string) {
    super(`${operationId}: ${message}`)
    this.name = 'AnimalStoreControlError'
    this.operationId = operationId
    this.status = status
    this.code = code
  }
}

/** An opt-in assertion that failed: the message lists what is missing, one line each. */
export class AnimalStoreAssertionError extends Error {
  /** The lines of the message's list: a response never exercised, a deprecated call, a failed expectation. */
  readonly problems: readonly string[]
  /** Without `summary`, the message is the problems' lines as they are (the sandbox's own text). */
  constructor(summary: string, problems: readonly string[])
  constructor(lines: readonly string[])
  constructor(summary: string | readonly string[], problems?: readonly string[]) {
    super(
      typeof summary === 'string'
        ? `${summary}\n${(problems ?? []).map((problem) => `  - ${problem.replace(/\n/g, '\n    ')}`).join('\n')}`
        : summary.join('\n'),
    )
    this.name = 'AnimalStoreAssertionError'
    this.problems = typeof summary === 'string' ? (problems ?? []) : summary
  }
}

export interface ControlClientOptions {
  /** The control API's token (ADMIN_TOKEN); the documented default otherwise. */
  readonly adminToken?: string
  /** The API key the namespace handles give tests (API_KEYS); the documented default otherwise. */
  readonly apiKey?: string
  /**
   * The CA (PEM) an https origin's certificate must chain to, instead of the system's: a sandbox's
   * own (getTlsCa() of a container started withTls()). A `fetch` of your own brings its own trust.
   */
  readonly ca?: string
  /** A fetch to send the calls with (a proxy, a recorder); node:http(s) over kept-alive connections by default. */
  readonly fetch?: typeof fetch
}

interface Connection {
  readonly origin: string
  readonly adminToken: string
  readonly apiKey: string
  readonly send: Transport
}

/** The control calls of one namespace (the default one when `namespace` is undefined). */
class NamespaceCalls {
  protected readonly connection: Connection
  readonly #namespace: string | undefined

  constructor(connection: Connection, namespace: string | undefined) {
    this.connection = connection
    this.#namespace = namespace
  }

  /** Puts the namespace (created if need be) back to its initial data, `seed`/`count` or `snapshot`. */
  async reset(options: ResetOptions = {}): Promise<StateSummary> {
    return this.call('reset', 'POST /reset', { body: Object.keys(options).length > 0 ? options : undefined })
  }

  /** Freezes the namespace's pets and clock as `name`, for any namespace's `reset({ snapshot: name })`. */
  async createSnapshot(name: string): Promise<Snapshot> {
    return this.call('createSnapshot', 'POST /snapshots', { body: { name, namespace: this.#namespace } })
  }

  /** Every pet of the namespace, in id order. */
  async exportPets(): Promise<Pet[]> {
    return this.call('exportPets', 'GET /pets')
  }

  /** Replaces every pet of the namespace, whole or not at all. */
  async replacePets(pets: readonly Pet[]): Promise<StateSummary> {
    return this.call('replacePets', 'PUT /pets', { body: pets })
  }

  /** A page of the requests that match every filter, oldest first; `{ after: page.next }` goes on. */
  async listRequests(filter: RequestFilter = {}, page: PageOptions = {}): Promise<JournalPage> {
    const { since, ...rest } = filter
    return this.call('listRequests', 'GET /requests', { query: { ...rest, ...page, since: instant(since) } })
  }

  /** How many requests match every filter given: the journal's cheapest check (no entry is sent). */
  async countRequests(filter: RequestFilter = {}): Promise<number> {
    return (await this.listRequests(filter, { limit: 0 })).count
  }

  /** Every request that matches the filter, oldest first, fetched a page at a time as the loop goes on. */
  async *allRequests(
    filter: RequestFilter = {},
    { limit }: Pick<PageOptions, 'limit'> = {},
  ): AsyncGenerator<JournalEntry> {
    if (limit === 0) throw new TypeError('allRequests: limit must be at least 1')
    let after: number | null = null
    do {
      const page: JournalPage = await this.listRequests(filter, { limit, after })
      yield* page.entries
      after = page.next
    } while (after !== null)
  }

  async clearRequests(): Promise<Cleared> {
    return this.call('clearRequests', 'DELETE /requests')
  }

  /** A page of the requests no operation of the spec matched, as listRequests. */
  async listUnmatchedRequests(page: PageOptions = {}): Promise<JournalPage> {
    return this.call('listUnmatchedRequests', 'GET /requests/unmatched', { query: page })
  }

  /** Arms a fault: `status`, `delayMs` or `fault` on the next `times` calls of `operationId` after the first `after`. */
  async addFault(fault: NewFault): Promise<Fault> {
    return this.call('addFault', 'POST /faults', { body: fault })
  }

  async listFaults(): Promise<{ count: number; faults: Fault[] }> {
    return this.call('listFaults', 'GET /faults')
  }

  async clearFaults(): Promise<Cleared> {
    return this.call('clearFaults', 'DELETE /faults')
  }

  /** What the journal shows of the contract's use: each documented response exercised or not, deprecated calls, … */
  async getCoverage(options: CoverageOptions = {}): Promise<CoverageReport> {
    return this.call('getCoverage', 'GET /coverage', { query: { ...options, format: 'json' } })
  }

  /** The same report as Markdown, for a CI artefact or a pull-request comment. */
  async getCoverageMarkdown(options: CoverageOptions = {}): Promise<string> {
    return this.call('getCoverage', 'GET /coverage', { query: { ...options, format: 'markdown' }, text: true })
  }

  /** How the sandbox's answers differed from the real API's (UPSTREAM_MODE=compare): each difference, and counts per operation. */
  async getDrift(): Promise<DriftReport> {
    return this.call('getDrift', 'GET /drift')
  }

  /** Checks the journal against `expectations`; resolves whether it passed or not (see `passed`, `message`). */
  async verify(expectations: readonly Expectation[], options: VerifyOptions = {}): Promise<VerifyResult> {
    const { traceId, ...body } = options
    return this.call('verify', 'POST /verify', { query: { traceId }, body: { ...body, expectations } })
  }

  /** The calls the namespace received as a Pact (V4) for a consumer-driven contract: see docs/pact.md. */
  async exportPact(options: PactOptions = {}): Promise<Pact> {
    return this.call('exportPact', 'GET /pact', { query: options })
  }

  /** Rejects with an AnimalStoreAssertionError listing each failed expectation and unexpected call. */
  async assertVerified(expectations: readonly Expectation[], options: VerifyOptions = {}): Promise<VerifyResult> {
    const result = await this.verify(expectations, options)
    if (result.passed) return result
    throw new AnimalStoreAssertionError('The calls made are not the calls expected:', [
      ...result.expectations.filter((e) => !e.passed).map((e) => e.message),
      ...result.unexpected.map(
        (e) =>
          `unexpected call (strict): #${e.id} ${e.method} ${e.path} → ${e.status ?? 'no answer'} (${e.operationId})`,
      ),
    ])
  }

  /**
   * Rejects with an AnimalStoreAssertionError, in the sandbox's words, unless every reachable
   * documented response of the named (or all) operations was exercised: those only malformed HTTP
   * or JSON causes (`reachable: false`) are not asked for.
   */
  async assertAllResponsesExercised(
    operationIds?: readonly ApiOperationId[],
    options: CoverageOptions = {},
  ): Promise<CoverageReport> {
    const report = await this.getCoverage(options)
    const named: readonly string[] | undefined = operationIds
    const unknown = (named ?? []).filter((id) => !report.operations.some((op) => op.operationId === id))
    if (unknown.length > 0)
      throw new TypeError(
        `assertAllResponsesExercised: no operation ${unknown.join(', ')} (the API has ${report.operations.map((op) => op.operationId).join(', ')})`,
      )
    const asked = named === undefined ? [report] : report.operations.filter((op) => named.includes(op.operationId))
    const failed = asked.filter((scope) => !scope.complete)
    // The sandbox words it: the report's message, or the lines of the operations named.
    if (failed.length > 0) throw new AnimalStoreAssertionError(failed.map((scope) => scope.message))
    return report
  }

  /** Rejects with an AnimalStoreAssertionError listing each deprecated operation called, its sunset and replacement. */
  async assertNoDeprecatedCalls(options: CoverageOptions = {}): Promise<CoverageReport> {
    const report = await this.getCoverage(options)
    if (report.deprecatedCalls.length > 0)
      throw new AnimalStoreAssertionError(
        'Deprecated operations were called:',
        report.deprecatedCalls.map(
          (c) =>
            `${c.operationId} (${c.method} ${c.path}): ${c.calls} call${c.calls === 1 ? '' : 's'}` +
            `${c.sunset ? `; removed on ${c.sunset.slice(0, 10)}` : ''}${c.replacement ? `; use ${c.replacement} instead` : ''}`,
        ),
      )
    return report
  }

  /** Rejects with an AnimalStoreAssertionError listing each experimental or beta operation called. */
  async assertNoUnstableCalls(options: CoverageOptions = {}): Promise<CoverageReport> {
    const report = await this.getCoverage(options)
    if (report.unstableCalls.length > 0)
      throw new AnimalStoreAssertionError(
        'Operations below stable were called:',
        report.unstableCalls.map(
          (c) =>
            `${c.operationId} (${c.method} ${c.path}, x-stability ${c.stability}): ${c.calls} call${c.calls === 1 ? '' : 's'}`,
        ),
      )
    return report
  }

  async getClock(): Promise<Clock> {
    return this.call('getClock', 'GET /clock')
  }

  /** Moves the namespace's clock to `now` (e.g. getPet's sunset, 2030-12-05), from where it runs on. */
  async setClock(now: Date | string): Promise<Clock> {
    return this.call('setClock', 'POST /clock', { body: { now: instant(now) } })
  }

  /** Returns the namespace's clock to real time. */
  async resetClock(): Promise<Clock> {
    return this.call('resetClock', 'DELETE /clock')
  }

  /**
   * Sends one operation: its query parameters left undefined (or a null cursor) are not sent, and
   * the handle's namespace is, except to /snapshots, /namespaces (the sandbox's, not a namespace's).
   */
  protected async call<T>(
    operationId: keyof operations,
    route: `${'GET' | 'POST' | 'PUT' | 'DELETE'} ${keyof paths}`,
    { query = {}, body, name = '', text: asText = false }: CallOptions = {},
  ): Promise<T> {
    const [method, path] = route.split(' ') as [string, string]
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(query)) if (value != null) search.set(key, String(value))
    if (this.#namespace !== undefined && !/^\/(snapshots|namespaces|tls)/.test(path))
      search.set('namespace', this.#namespace)
    const target = path.replace('{name}', encodeURIComponent(name))
    const url = `${this.connection.origin}${CONTROL_PATH}${target}${search.size > 0 ? `?${search}` : ''}`
    const headers: Record<string, string> = { authorization: `Bearer ${this.connection.adminToken}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const { status, text } = await this.connection.send(
      method,
      url,
      headers,
      body === undefined ? undefined : JSON.stringify(body),
    )
    let answer: unknown
    try {
      answer = JSON.parse(text)
    } catch {
      answer = undefined
    }
    if (status < 200 || status > 299) {
      const error = (answer ?? {}) as { code?: string; message?: string }
      throw new AnimalStoreControlError(
        operationId,
        status,
        error.code ?? 'unknown',
        error.message ?? text.slice(0, 500),
      )
    }
    return (asText ? text : answer) as T
  }
}

/** A handle on one namespace: its control calls, and what a test's own HTTP client needs there. */
export class NamespaceControl extends NamespaceCalls {
  readonly name: string

  constructor(connection: Connection, name: string) {
    super(connection, name)
    this.name = name
  }

  /** e.g. `http://localhost:32768/v1`: the API's base URL, for `${apiBaseUrl}/pets`. */
  get apiBaseUrl(): string {
    return `${this.connection.origin}${API_PATH}`
  }

  /** The headers that make an API request use this namespace, with the API key. */
  get apiHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.connection.apiKey}`, [NAMESPACE_HEADER.toLowerCase()]: this.name }
  }
}

/** The control API of one sandbox; its own calls act on the default namespace. */
export class AnimalStoreControlClient extends NamespaceCalls {
  /** @param origin the sandbox's origin, e.g. `http://localhost:32768` (a trailing /v1 or / is ignored) */
  constructor(origin: string, options: ControlClientOptions = {}) {
    const base = new URL(origin)
    super(
      {
        origin: `${base.protocol}//${base.host}`,
        adminToken: options.adminToken ?? DEFAULT_ADMIN_TOKEN,
        apiKey: options.apiKey ?? DEFAULT_API_KEY,
        send: options.fetch === undefined ? httpTransport({ ca: options.ca }) : fetchTransport(options.fetch),
      },
      undefined,
    )
  }

  /** A handle on the namespace `name`: nothing is sent until a call is made (reset creates it). */
  namespace(name: string): NamespaceControl {
    return new NamespaceControl(this.connection, name)
  }

  /** The namespaces in memory, least recently used first. */
  async listNamespaces(): Promise<NamespaceList> {
    return this.call('listNamespaces', 'GET /namespaces')
  }

  /** Deletes a namespace with its pets (durably), journal, faults and clock. */
  async deleteNamespace(name: string): Promise<Deleted> {
    return this.call('deleteNamespace', 'DELETE /namespaces/{name}', { name })
  }

  /** The snapshots, oldest first, each with the namespaces that start from it. */
  async listSnapshots(): Promise<SnapshotList> {
    return this.call('listSnapshots', 'GET /snapshots')
  }

  /** Deletes a snapshot (durably); refused (409) while a namespace starts from it. */
  async deleteSnapshot(name: string): Promise<SnapshotDeleted> {
    return this.call('deleteSnapshot', 'DELETE /snapshots/{name}', { name })
  }

  /** The PEM of the CA that TLS=auto made at this start; a 404 when the sandbox made none. */
  async getTlsCa(): Promise<string> {
    return this.call('getTlsCa', 'GET /tls/ca', { text: true })
  }
}

interface CallOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | null | undefined>>
  readonly body?: unknown
  /** The `{name}` of the path. */
  readonly name?: string
  /** The answer as text rather than JSON. */
  readonly text?: boolean
}

/** A Date as the control API takes it; a string goes as given, for the sandbox to judge. */
function instant<T>(value: Date | T): string | T {
  return value instanceof Date ? value.toISOString() : value
}
