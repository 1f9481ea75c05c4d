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
 * const t1 = sandbox.namespace('t1') // a test's own namespace: its control calls, its headers
 * // withTls(): HTTPS and HTTP/2, getBaseUrl() is https://…, trusted through node:https's `{ ca: sandbox.getTlsCa() }`
 * await t1.api.POST('/reset')
 * const calls = await t1.countRequests({ operationId: 'listPets' })
 * await sandbox.stop()
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  type RestartOptions,
  type StartedTestContainer,
} from 'testcontainers'
import { AnimalStoreControlClient, type NamespaceControl } from './client.js'
import { caFileOf, fileOfArchive, TLS_CA_FILE } from './tls.js'
import { exitedError, HealthzWaitStrategy } from './wait.js'

// The module's entry is the client's too: one import gives the container and every control type.
export * from './client.js'

// The server's own facts that this package repeats, since it does not ship the server: a test in the
// server's repository holds each to the server's value (test/container/node-module.test.ts).
export { TLS_CA_FILE }
/** The port the sandbox listens on inside the container. */
export const ANIMAL_STORE_PORT = 4010
/** DATA_FILE's value for "keep the data in memory only". */
export const IN_MEMORY = ':memory:'
/** The image of this package's version, as `npm run image` tags it (and as a release publishes it). */
export const DEFAULT_IMAGE = `animal-store-sandbox:${
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version
}`
/** The spec's base path; the container tests check it against the running server. */
const BASE_PATH = '/v1'
/** Marks the container of one start(), so that a start that fails finds and removes what it made. */
const START_LABEL = 'animal-store-sandbox.start'
const WHO = 'AnimalStoreContainer'

/** Settings that belong to the module: the container must listen on 4010, on every interface. */
const MODULE_SETTINGS: Readonly<Record<string, string>> = {
  PORT: `the sandbox listens on ${ANIMAL_STORE_PORT} in the container`,
  HOST: 'the sandbox listens on every interface in the container',
}

export class AnimalStoreContainer extends GenericContainer {
  #fixtures: string | undefined
  /** The credentials (API_KEYS, ADMIN_TOKEN) that start() generated: the next start makes others. */
  readonly #generated = new Set<string>()

  /** @param image an image built from the sandbox's Dockerfile (default: the tag of this package's version) */
  constructor(image: string = DEFAULT_IMAGE) {
    super(image)
    this.withExposedPorts(ANIMAL_STORE_PORT)
      // 200 on /healthz, polled every 20 ms; a sandbox that cannot start (a bad setting, bad
      // fixtures) exits at once: fail then, with its message, rather than wait out the timeout.
      .withWaitStrategy(new HealthzWaitStrategy(ANIMAL_STORE_PORT))
      .withStartupTimeout(30_000)
    // It waits over HTTP: the image's own HEALTHCHECK would only spend CPU in every test's container.
    // (Docker's ["NONE"] turns it off; withHealthCheck() only takes a command.)
    this.createOpts.Healthcheck = { Test: ['NONE'] }
  }

  /** Every setting of the sandbox, which checks them when it starts: start() then fails with its message. */
  override withEnvironment(environment: Record<string, string>): this {
    for (const name of Object.keys(environment))
      if (MODULE_SETTINGS[name] !== undefined)
        throw new TypeError(`${WHO}: ${name} is the module's: ${MODULE_SETTINGS[name]}`)
    for (const name of Object.keys(environment)) this.#generated.delete(name)
    return super.withEnvironment(environment)
  }

  /** SEED: the same seed gives the same initial pets. */
  withSeed(seed: number): this {
    return this.withEnvironment({ SEED: String(seed) })
  }

  /** How many pets the seed generates (SEED_COUNT). */
  withSeedCount(count: number): this {
    return this.withEnvironment({ SEED_COUNT: String(count) })
  }

  /** API_KEYS; without one, each start() generates a random one, as it does ADMIN_TOKEN's. */
  withApiKey(apiKey: string): this {
    return this.withEnvironment({ API_KEYS: apiKey })
  }

  withAdminToken(token: string): this {
    return this.withEnvironment({ ADMIN_TOKEN: token })
  }

  /** The initial pets from this JSON file on the host, copied to `/fixtures/<name>` (FIXTURES). */
  withFixtures(file: string): this {
    readFixtures(file) // now, to fail where it is set; again at start(), which copies what it reads
    this.#fixtures = file
    return this.withEnvironment({ FIXTURES: `/fixtures/${basename(file)}` })
  }

  /** DATA_FILE=:memory: instead of the container's /data volume. */
  withInMemory(): this {
    return this.withEnvironment({ DATA_FILE: IN_MEMORY })
  }

  /** HTTPS and HTTP/2 with a CA the sandbox makes at start (TLS=auto), which getTlsCa() gives and the module trusts alone. */
  withTls(): this {
    return this.withEnvironment({ TLS: 'auto', TLS_CA_OUT: TLS_CA_FILE })
  }

  override async start(): Promise<StartedAnimalStoreContainer> {
    // The container listens on every interface: no start relies on the published defaults, each
    // brings a key and a token of its own.
    for (const name of ['API_KEYS', 'ADMIN_TOKEN'])
      if (this.#generated.has(name) || !this.environment[name]) {
        super.withEnvironment({ [name]: randomBytes(24).toString('base64url') })
        this.#generated.add(name)
      }
    if (this.#fixtures !== undefined) {
      const target = this.environment['FIXTURES'] ?? ''
      this.withCopyContentToContainer([{ content: readFixtures(this.#fixtures), target, mode: 0o644 }])
    }
    const client = await getContainerRuntimeClient()
    // The certificate of TLS=auto names localhost and its addresses; the host Testcontainers dials
    // (a remote engine's, or the gateway from inside a container) is named too (TLS_NAMES).
    const names = (this.environment['TLS_NAMES'] ?? '').split(',').filter(Boolean)
    const host = client.info.containerRuntime.host
    if (this.environment['TLS'] === 'auto' && !names.includes(host))
      super.withEnvironment({ TLS_NAMES: [...names, host].join(',') })
    if (!(await client.image.exists(this.imageName))) {
      await client.image.pull(this.imageName).catch((cause: unknown) => {
        throw new Error(missingImage(this.imageName.string, cause), { cause })
      })
    }
    // A reused container outlives a failed start; any other is this start's to remove.
    const startId = randomUUID()
    if (!this.reuse) this.withLabels({ [START_LABEL]: startId })
    // When the container exits, testcontainers reads its last logs for the error through a socket
    // it unrefs: with nothing else pending, Node would exit before they arrive (and before start()
    // settles). A timer keeps the process alive until it does.
    const keepAlive = setInterval(() => undefined, 1000)
    const caFile = caFileOf(this.environment)
    let started: StartedTestContainer
    let tls: SandboxTls | undefined
    try {
      started = await super.start()
      if (caFile !== undefined) tls = { caFile, ca: await copyCa(started, caFile) }
    } catch (error) {
      if (this.reuse) throw error
      // A sandbox that exits before the engine reports its ports bound fails testcontainers' own
      // wait for them, with a timeout that says nothing of why: its last log lines do.
      throw (await failedStart(startId).catch(() => undefined)) ?? error
    } finally {
      clearInterval(keepAlive)
    }
    // The first key as the sandbox reads API_KEYS: comma-separated, trimmed.
    const apiKey = this.environment['API_KEYS']?.split(',')[0]?.trim() ?? ''
    return new StartedAnimalStoreContainer(started, apiKey, this.environment['ADMIN_TOKEN'] ?? '', tls)
  }
}

interface SandboxTls {
  readonly caFile: string
  readonly ca: string
}

/** A running sandbox, with its control API (/__admin) through the control client. */
export class StartedAnimalStoreContainer extends AbstractStartedContainer {
  readonly #apiKey: string
  readonly #adminToken: string
  #tls: SandboxTls | undefined
  #client: AnimalStoreControlClient | undefined

  constructor(started: StartedTestContainer, apiKey: string, adminToken: string, tls?: SandboxTls) {
    super(started)
    this.#apiKey = apiKey
    this.#adminToken = adminToken
    this.#tls = tls
  }

  /** The published port may change, and with withTls() the sandbox makes a new CA, which the module then trusts. */
  override async restart(options?: Partial<RestartOptions>): Promise<void> {
    await super.restart(options)
    if (this.#tls !== undefined) this.#tls = { ...this.#tls, ca: await copyCa(this, this.#tls.caFile) }
    this.#client = undefined
  }

  /** e.g. `http://localhost:32768` (`https://` with withTls()): the sandbox's origin on the host, where /healthz lives. */
  getOrigin(): string {
    return `${this.#tls === undefined ? 'http' : 'https'}://${this.getHost()}:${this.getMappedPort(ANIMAL_STORE_PORT)}`
  }

  /** The PEM of the CA of this start (withTls()): node:https's `{ ca }`, an undici Agent's `{ connect: { ca } }`. */
  getTlsCa(): string {
    if (this.#tls === undefined)
      throw new TypeError(`${WHO}: getTlsCa(): the sandbox serves plain HTTP; withTls() makes a CA`)
    return this.#tls.ca
  }

  /** e.g. `http://localhost:32768/v1`: the API's base URL, ready for `${baseUrl}/pets`. */
  getBaseUrl(): string {
    return this.getOrigin() + BASE_PATH
  }

  /** The first of API_KEYS as set, or the one start() generated. */
  getApiKey(): string {
    return this.#apiKey
  }

  getAdminToken(): string {
    return this.#adminToken
  }

  /** Every control operation, and handles on namespaces; other processes make their own from its origin, token, key and CA. */
  controlClient(): AnimalStoreControlClient {
    return (this.#client ??= new AnimalStoreControlClient(this.getOrigin(), {
      adminToken: this.#adminToken,
      apiKey: this.#apiKey,
      ca: this.#tls?.ca,
    }))
  }

  /** A handle on one namespace: its control calls, its API base URL and headers. */
  namespace(name: string): NamespaceControl {
    return this.controlClient().namespace(name)
  }
}

/** The PEM of the CA the sandbox in `container` wrote to `file`. */
async function copyCa(container: StartedTestContainer, file: string): Promise<string> {
  return fileOfArchive(await container.copyArchiveFromContainer(file))
}

/** The file's bytes; a file that is missing, not a file or unreadable throws, naming it. */
function readFixtures(file: string): Buffer {
  try {
    if (!statSync(file).isFile()) throw new Error('it is not a file')
    return readFileSync(file)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (error as Error).message
    throw new TypeError(`${WHO}: withFixtures(): cannot read ${file}: ${reason}`, { cause: error })
  }
}

function missingImage(image: string, cause: unknown): string {
  const why = String((cause as Error | undefined)?.message ?? cause).split('\n')[0]
  return (
    `${WHO}: the image ${image} is not on this Docker engine, and pulling it failed (${why}). ` +
    `Build it in the sandbox's repository with \`npm run image\` (it tags the image :local and with the ` +
    `package's version), or load a saved one with \`docker load -i <file>\`; or pass another image to the constructor.`
  )
}

/** The error of one start's exited container, with its last log lines (or none); then removes what it made. */
async function failedStart(startId: string): Promise<Error | undefined> {
  const { container } = await getContainerRuntimeClient()
  const made = await container.dockerode.listContainers({
    all: true,
    filters: { label: [`${START_LABEL}=${startId}`] },
  })
  const exited = made.find(({ State }) => State === 'exited')
  const error = exited && (await exitedError(container.getById(exited.Id)).catch(() => undefined))
  // With their anonymous volumes; testcontainers may have removed them already.
  await Promise.all(
    made.map(({ Id }) =>
      container
        .getById(Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  )
  return error
}
