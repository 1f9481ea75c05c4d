/**
 * A Testcontainers module for the Animal Store sandbox, shaped like the official modules:
 *
 * @example
 * import { AnimalStoreContainer } from 'animal-store-sandbox-testcontainers'
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
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { AbstractStartedContainer, GenericContainer, Wait, type StartedTestContainer } from 'testcontainers'
import {
  AnimalStoreControlClient,
  DEFAULT_ADMIN_TOKEN,
  DEFAULT_API_KEY,
  type Cleared,
  type Clock,
  type Fault,
  type JournalPage,
  type NamespaceControl,
  type NewFault,
  type RequestFilter as ClientRequestFilter,
  type StateSummary,
} from './client.js'

// The server's own facts that this package repeats, since it does not ship the server: a test in the
// server's repository holds each to the server's value (test/container/node-module.test.ts).
/** The port the sandbox listens on inside the container. */
export const ANIMAL_STORE_PORT = 4010
/** DATA_FILE's value for "keep the data in memory only". */
const IN_MEMORY = ':memory:'
/** A bearer token as RFC 6750 defines it (b64token): what ADMIN_TOKEN accepts. */
export const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
const BEARER_TOKEN_RULE = 'letters, digits and -._~+/, then ='

/** The image of this package's version, as `npm run image` tags it (and as a release publishes it). */
export const DEFAULT_IMAGE = `animal-store-sandbox:${
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version
}`
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

  /** @param image an image built from this package's Dockerfile (default: the tag of this package's version) */
  constructor(image: string = DEFAULT_IMAGE) {
    super(image)
    this.withExposedPorts(ANIMAL_STORE_PORT)
      // A sandbox that cannot start (a bad setting, bad fixtures) exits at once: fail then, with its
      // message, rather than wait out the startup timeout.
      .withWaitStrategy(Wait.forHttp('/healthz', ANIMAL_STORE_PORT, { abortOnContainerExit: true }).forStatusCode(200))
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
    // It waits over HTTP: the image's own HEALTHCHECK would only spend CPU in every test's container.
    // (Docker's ["NONE"] turns it off; withHealthCheck() only takes a command.)
    this.createOpts.Healthcheck = { Test: ['NONE'] }
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
export type RequestFilter = ClientRequestFilter & { readonly namespace?: string }

export { AnimalStoreControlClient, AnimalStoreControlError, NamespaceControl } from './client.js'
export type { Fault, JournalEntry, JournalPage, NewFault } from './client.js'

/** A running sandbox, with its control API (/__admin) through the control client. */
export class StartedAnimalStoreContainer extends AbstractStartedContainer {
  readonly #apiKey: string
  readonly #adminToken: string
  #client: AnimalStoreControlClient | undefined

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

  /**
   * The control client of this sandbox: every control operation, and handles on namespaces. Its
   * origin, token and key can be handed to other processes (test workers), which make their own
   * `new AnimalStoreControlClient(origin, { adminToken, apiKey })`.
   */
  controlClient(): AnimalStoreControlClient {
    return (this.#client ??= new AnimalStoreControlClient(this.getOrigin(), {
      adminToken: this.#adminToken,
      apiKey: this.#apiKey,
    }))
  }

  /** A handle on one namespace: its control calls, its API base URL and headers. */
  namespace(name: string): NamespaceControl {
    return this.controlClient().namespace(name)
  }

  /** Puts a namespace back to its initial data (or to pets from `seed`/`count`), and clears its journal, faults and clock. */
  reset(options: { namespace?: string; seed?: number; count?: number } = {}): Promise<StateSummary> {
    const { namespace, ...body } = options
    return this.#calls(namespace).reset(body)
  }

  /** The requests a namespace received, oldest first, that match every filter given. */
  requests(filter: RequestFilter = {}): Promise<JournalPage> {
    const { namespace, ...rest } = filter
    return this.#calls(namespace).listRequests(rest)
  }

  /** Arms a fault: `status`, `delayMs` or `fault` on the next `times` calls of `operationId` after the first `after`. */
  injectFault(fault: NewFault & { namespace?: string }): Promise<Fault> {
    const { namespace, ...body } = fault
    return this.#calls(namespace).addFault(body)
  }

  /** Removes every fault of a namespace. */
  clearFaults(namespace?: string): Promise<Cleared> {
    return this.#calls(namespace).clearFaults()
  }

  /** Sets the sandbox's now (e.g. the getPet sunset, 2030-12-05); `undefined` returns to real time. */
  setClock(now: Date | string | undefined, namespace?: string): Promise<Clock> {
    const calls = this.#calls(namespace)
    return now === undefined ? calls.resetClock() : calls.setClock(now)
  }

  #calls(namespace: string | undefined): AnimalStoreControlClient | NamespaceControl {
    return namespace === undefined ? this.controlClient() : this.namespace(namespace)
  }
}

function wholeNumber(what: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new RangeError(`AnimalStoreContainer: the ${what} must be a whole number from 0 to ${max}, got ${value}`)
  return value
}
