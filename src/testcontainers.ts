/**
 * A Testcontainers module for the Animal Store sandbox, shaped like the official modules:
 *
 * @example
 * import { AnimalStoreContainer } from 'animal-store-sandbox/testcontainers'
 *
 * const sandbox = await new AnimalStoreContainer().withSeed(7).withApiKey('test-key').start()
 * const response = await fetch(`${sandbox.getBaseUrl()}/pets`, {
 *   headers: { authorization: `Bearer ${sandbox.getApiKey()}` },
 * })
 * await sandbox.reset() // between tests: initial data, empty journal, no faults
 * const { entries } = await sandbox.requests({ operationId: 'listPets' })
 * await sandbox.stop()
 *
 * @module
 */
import { basename } from 'node:path'
import { AbstractStartedContainer, GenericContainer, Wait, type StartedTestContainer } from 'testcontainers'
import { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY, DEFAULT_PORT, IN_MEMORY } from './config.js'
import { BEARER_TOKEN, BEARER_TOKEN_RULE } from './pipeline/auth.js'
import type { Fault, NewFault } from './control/faults.js'
import type { JournalEntry } from './control/request-journal.js'

/** The image `npm run image` builds. */
export const DEFAULT_IMAGE = 'animal-store-sandbox:local'
/** The port the sandbox listens on inside the container. */
export const ANIMAL_STORE_PORT = DEFAULT_PORT
/** The spec's base path; the container tests check it against the running server. */
const BASE_PATH = '/v1'
/** Where withFixtures() puts the file inside the container. */
const FIXTURES_DIR = '/fixtures'
const STARTUP_TIMEOUT_MS = 30_000

export class AnimalStoreContainer extends GenericContainer {
  #apiKey: string | undefined
  #adminToken: string | undefined
  #seed: number | undefined
  #seedCount: number | undefined
  #fixtures: string | undefined
  #inMemory = false

  /** @param image an image built from this package's Dockerfile (default `animal-store-sandbox:local`) */
  constructor(image: string = DEFAULT_IMAGE) {
    super(image)
    this.withExposedPorts(ANIMAL_STORE_PORT)
      // A sandbox that cannot start (a bad setting, bad fixtures) exits at once: fail then, with its
      // message, rather than wait out the startup timeout.
      .withWaitStrategy(Wait.forHttp('/healthz', ANIMAL_STORE_PORT, { abortOnContainerExit: true }).forStatusCode(200))
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
  }

  /** Generate the initial pets from this seed (SEED): the same seed gives the same pets. */
  withSeed(seed: number): this {
    this.#seed = wholeNumber('seed', seed, 2 ** 32 - 1)
    return this
  }

  /** How many pets the seed generates (SEED_COUNT). */
  withSeedCount(count: number): this {
    this.#seedCount = wholeNumber('seed count', count, 1_000_000)
    return this
  }

  /** The API key clients must send as `Authorization: Bearer <key>` (API_KEYS); default `sandbox-api-key`. */
  withApiKey(apiKey: string): this {
    if (apiKey.trim() === '' || apiKey.includes(','))
      throw new TypeError('AnimalStoreContainer: an API key must be non-empty and hold no comma')
    this.#apiKey = apiKey
    return this
  }

  /** The token of the control API (ADMIN_TOKEN) that reset(), requests(), injectFault() and setClock() use. */
  withAdminToken(token: string): this {
    if (!BEARER_TOKEN.test(token))
      throw new TypeError(`AnimalStoreContainer: an admin token must be a bearer token (${BEARER_TOKEN_RULE})`)
    this.#adminToken = token
    return this
  }

  /** Load the initial pets from this JSON file on the host (FIXTURES): it is copied into the container. */
  withFixtures(file: string): this {
    this.#fixtures = file
    return this
  }

  /** Keep the data in memory only (DATA_FILE=:memory:) instead of the container's /data volume. */
  withInMemory(): this {
    this.#inMemory = true
    return this
  }

  override async start(): Promise<StartedAnimalStoreContainer> {
    if (this.#fixtures !== undefined && (this.#seed !== undefined || this.#seedCount !== undefined)) {
      throw new TypeError(
        'AnimalStoreContainer: withFixtures() and withSeed()/withSeedCount() both choose the initial data: use one of them',
      )
    }
    const environment: Record<string, string> = {}
    if (this.#apiKey !== undefined) environment['API_KEYS'] = this.#apiKey
    if (this.#adminToken !== undefined) environment['ADMIN_TOKEN'] = this.#adminToken
    if (this.#seed !== undefined) environment['SEED'] = String(this.#seed)
    if (this.#seedCount !== undefined) environment['SEED_COUNT'] = String(this.#seedCount)
    if (this.#inMemory) environment['DATA_FILE'] = IN_MEMORY
    if (this.#fixtures !== undefined) {
      const target = `${FIXTURES_DIR}/${basename(this.#fixtures)}`
      this.withCopyFilesToContainer([{ source: this.#fixtures, target, mode: 0o644 }])
      environment['FIXTURES'] = target
    }
    this.withEnvironment(environment)
    // When the container exits, testcontainers reads its last logs for the error through a socket
    // it unrefs: with nothing else pending, Node would exit before they arrive (and before start()
    // settles). A timer keeps the process alive until it does.
    const keepAlive = setInterval(() => undefined, 1000)
    let started: StartedTestContainer
    try {
      started = await super.start()
    } finally {
      clearInterval(keepAlive)
    }
    return new StartedAnimalStoreContainer(
      started,
      this.#apiKey ?? DEFAULT_API_KEY,
      this.#adminToken ?? DEFAULT_ADMIN_TOKEN,
    )
  }
}

/** Filters of requests(): every one given must match; `namespace` picks the journal. */
export interface RequestFilter {
  readonly namespace?: string
  readonly method?: string
  /** Exact, or a prefix when it ends with `*`. */
  readonly path?: string
  /** An operationId, or `unmatched`. */
  readonly operationId?: string
  readonly status?: number
  readonly since?: Date | string
}

/** A control API call the sandbox refused: its status and the Error body's code. */
export class AnimalStoreControlError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.name = 'AnimalStoreControlError'
    this.status = status
    this.code = code
  }
}

/** A running sandbox, with typed calls to its control API (/__admin). */
export class StartedAnimalStoreContainer extends AbstractStartedContainer {
  readonly #apiKey: string
  readonly #adminToken: string

  constructor(started: StartedTestContainer, apiKey: string, adminToken: string = DEFAULT_ADMIN_TOKEN) {
    super(started)
    this.#apiKey = apiKey
    this.#adminToken = adminToken
  }

  /** e.g. `http://localhost:32768`: the sandbox's origin on the host, where /healthz lives. */
  getOrigin(): string {
    return `http://${this.getHost()}:${this.getMappedPort(ANIMAL_STORE_PORT)}`
  }

  /** e.g. `http://localhost:32768/v1`: the API's base URL, ready for `${baseUrl}/pets`. */
  getBaseUrl(): string {
    return this.getOrigin() + BASE_PATH
  }

  /** The key to send as `Authorization: Bearer <key>`. */
  getApiKey(): string {
    return this.#apiKey
  }

  /** The control API's token. */
  getAdminToken(): string {
    return this.#adminToken
  }

  /** Puts a namespace back to its initial data (or to pets from `seed`/`count`), and clears its journal, faults and clock. */
  reset(
    options: { namespace?: string; seed?: number; count?: number } = {},
  ): Promise<{ namespace: string; pets: number }> {
    const { namespace, ...body } = options
    return this.#admin('POST', '/reset', namespace, Object.keys(body).length > 0 ? body : undefined)
  }

  /** The requests a namespace received, oldest first, that match every filter given. */
  requests(filter: RequestFilter = {}): Promise<{ count: number; entries: JournalEntry[] }> {
    const { namespace, since, ...rest } = filter
    const query: Record<string, string> = {}
    for (const [name, value] of Object.entries(rest)) if (value !== undefined) query[name] = String(value)
    if (since !== undefined) query['since'] = new Date(since).toISOString()
    return this.#admin('GET', '/requests', namespace, undefined, query)
  }

  /** Arms a fault: `status`, `delayMs` or `fault` on the next `times` calls of `operationId` after the first `after`. */
  injectFault(fault: NewFault & { namespace?: string }): Promise<Fault> {
    const { namespace, ...body } = fault
    return this.#admin('POST', '/faults', namespace, body)
  }

  /** Removes every fault of a namespace. */
  clearFaults(namespace?: string): Promise<{ namespace: string; cleared: number }> {
    return this.#admin('DELETE', '/faults', namespace)
  }

  /** Sets the sandbox's now (e.g. the getPet sunset, 2030-12-05); `undefined` returns to real time. */
  setClock(
    now: Date | string | undefined,
    namespace?: string,
  ): Promise<{ namespace: string; now: string; real: boolean }> {
    return now === undefined
      ? this.#admin('DELETE', '/clock', namespace)
      : this.#admin('POST', '/clock', namespace, { now: new Date(now).toISOString() })
  }

  async #admin<T>(
    method: string,
    path: string,
    namespace: string | undefined,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<T> {
    const search = new URLSearchParams(namespace === undefined ? query : { ...query, namespace })
    const url = `${this.getOrigin()}/__admin${path}${search.size > 0 ? `?${search}` : ''}`
    const headers: Record<string, string> = { authorization: `Bearer ${this.#adminToken}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const answer = (await res.json()) as T & { code?: string; message?: string }
    if (!res.ok)
      throw new AnimalStoreControlError(
        res.status,
        answer.code ?? 'unknown',
        `${method} /__admin${path}: ${answer.message ?? res.statusText}`,
      )
    return answer
  }
}

function wholeNumber(what: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new RangeError(`AnimalStoreContainer: the ${what} must be a whole number from 0 to ${max}, got ${value}`)
  return value
}
