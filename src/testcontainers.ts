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
 * await sandbox.stop()
 *
 * @module
 */
import { basename } from 'node:path'
import { AbstractStartedContainer, GenericContainer, Wait, type StartedTestContainer } from 'testcontainers'
import { DEFAULT_API_KEY, DEFAULT_PORT, IN_MEMORY } from './config.js'

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
  #seed: number | undefined
  #seedCount: number | undefined
  #fixtures: string | undefined
  #inMemory = false

  /** @param image an image built from this package's Dockerfile (default `animal-store-sandbox:local`) */
  constructor(image: string = DEFAULT_IMAGE) {
    super(image)
    this.withExposedPorts(ANIMAL_STORE_PORT)
      .withWaitStrategy(Wait.forHttp('/healthz', ANIMAL_STORE_PORT).forStatusCode(200))
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
    if (apiKey.trim() === '' || apiKey.includes(',')) throw new TypeError('AnimalStoreContainer: an API key must be non-empty and hold no comma')
    this.#apiKey = apiKey
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
      throw new TypeError('AnimalStoreContainer: withFixtures() and withSeed()/withSeedCount() both choose the initial data: use one of them')
    }
    const environment: Record<string, string> = {}
    if (this.#apiKey !== undefined) environment['API_KEYS'] = this.#apiKey
    if (this.#seed !== undefined) environment['SEED'] = String(this.#seed)
    if (this.#seedCount !== undefined) environment['SEED_COUNT'] = String(this.#seedCount)
    if (this.#inMemory) environment['DATA_FILE'] = IN_MEMORY
    if (this.#fixtures !== undefined) {
      const target = `${FIXTURES_DIR}/${basename(this.#fixtures)}`
      this.withCopyFilesToContainer([{ source: this.#fixtures, target, mode: 0o644 }])
      environment['FIXTURES'] = target
    }
    this.withEnvironment(environment)
    return new StartedAnimalStoreContainer(await super.start(), this.#apiKey ?? DEFAULT_API_KEY)
  }
}

/**
 * A running sandbox. The test-control operations (reset, state dump) belong here as methods that
 * call the sandbox's control routes with this container's origin and key, once the server has them.
 */
export class StartedAnimalStoreContainer extends AbstractStartedContainer {
  readonly #apiKey: string

  constructor(started: StartedTestContainer, apiKey: string) {
    super(started)
    this.#apiKey = apiKey
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
}

function wholeNumber(what: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`AnimalStoreContainer: the ${what} must be a whole number from 0 to ${max}, got ${value}`)
  return value
}
