// Starts a sandbox: spec → initial data → store → the core and the list of capabilities → app →
// HTTP server, and stops it cleanly, the capabilities closed in the list's order.
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { createApp } from './app.js'
import { KeyRing } from './pipeline/auth.js'
import { ConfigError, DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY, type Config } from './config.js'
import { Control } from './control/request-control.js'
import { listen, stop, type SandboxServer, type ServerLimits, SERVER_LIMITS } from './http/server.js'
import { tls } from './tls/capability.js'
import { mcp } from './mcp/capability.js'
import { hostsServed } from './http/hosts.js'
import { explorer, type SandboxFacts } from './explorer/capability.js'
import type { Capability } from './capability.js'
import { JournalMemory } from './journal/journal-memory.js'
import { Redactor } from './journal/redactor.js'
import { createLogger } from './logger.js'
import { telemetry as openTelemetry } from './telemetry/capability.js'
import { Namespaces, namespaceOfKey } from './namespaces/namespaces.js'
import { LocalNamespaces } from './namespaces/namespace-local.js'
import { NamespaceQuota } from './namespaces/namespace-quota.js'
import { loadControlSpec, loadSpec } from './contract/load.js'
import { sandboxFacts } from './bundle-facts.js'
import type { ApiSpec, SpecOperations } from './contract/types.js'
import type { AnimalStore } from './store/store.js'
import type { DataFileOptions } from './store/data-file.js'
import type { Baseline } from './store/baseline.js'
import { openStores, type Stores } from './store/stores.js'
import { fidelity } from './fidelity/capability.js'
import { pact } from './pact/capability.js'
import { verification } from './verification/capability.js'
import { UNIMPLEMENTED } from './api/operations.js'
import type { Shared } from './shared/shared.js'

export { SERVER_LIMITS, type ServerLimits } from './http/server.js'

export interface Sandbox {
  readonly server: SandboxServer
  /** The default namespace's store. */
  readonly store: AnimalStore
  /** Every namespace: its store, journal, faults and clock. */
  readonly namespaces: Namespaces
  /** The CA that TLS=auto made, PEM: what a client trusts. */
  readonly tlsCa: string | undefined
  /** e.g. http://127.0.0.1:4010, or https:// */
  readonly origin: string
  /** The API's base URL, e.g. http://127.0.0.1:4010/v1 */
  readonly baseUrl: string
  /** What the data came from, for the banner. */
  readonly dataDescription: string
  /** Stops accepting, finishes requests in flight, flushes the store. */
  close(): Promise<void>
}

export async function startSandbox(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  limits: ServerLimits = SERVER_LIMITS,
  /** How data files are written; tests pass a file system that fails chosen calls. */
  storage: DataFileOptions = {},
): Promise<Sandbox> {
  const spec = await loadContract(config.specFile)
  // Telemetry times the stores' writes: made after the stores, which tell it through this.
  let observeWrite: ((seconds: number) => void) | undefined
  const shared = config.databaseUrl === undefined ? undefined : await connect(config.databaseUrl, logger)
  const stores = await openStores({
    dataFile: config.dataFile,
    initialData: config.initialData,
    spec,
    bounds: config.storeBounds,
    logger,
    storage,
    observeWrite: config.adminToken === undefined ? undefined : (seconds) => observeWrite?.(seconds),
    snapshotShelf: shared?.shelf,
  }).catch(async (error: unknown) => {
    await shared?.database.close()
    throw error
  })
  try {
    return await serve(config, logger, limits, spec, stores, shared, (made) => (observeWrite = made))
  } catch (error) {
    await shared?.database.close()
    await stores.close()
    throw error
  }
}

/** DATABASE_URL's database, its schema brought up to date; a start that cannot reach it stops with one line. */
async function connect(url: string, logger: Logger): Promise<Shared> {
  try {
    const { openShared } = await import('./shared/shared.js')
    return await openShared(url, logger)
  } catch (error) {
    const { host, pathname } = new URL(url)
    throw new ConfigError(
      `DATABASE_URL: cannot use the database ${pathname.slice(1)} at ${host}: ${(error as Error).message}`,
    )
  }
}

async function serve(
  config: Config,
  logger: Logger,
  limits: ServerLimits,
  spec: ApiSpec,
  stores: Stores,
  shared: Shared | undefined,
  setObserveWrite: (observe: (seconds: number) => void) => void,
): Promise<Sandbox> {
  const store = stores.default
  const { fromDataFile } = stores
  const prefix = config.namespaceKeyPrefix
  const upstreamKey = config.upstream?.apiKey
  const secrets = [config.apiKeys, config.adminToken ?? [], upstreamKey ?? []].flat()
  const redactor = new Redactor(secrets, { keyPrefix: prefix, headers: config.redactHeaders })
  const perKey = config.namespacesPerKey
  // Counted in this process; PostgreSQL counts in the database.
  const quota = shared ? undefined : await NamespaceQuota.open(perKey, config.dataFile, stores, logger)
  const namespaces = new Namespaces({
    stores,
    journals: new JournalMemory(config.journal),
    redactor,
    maxNamespaces: config.maxNamespaces,
    quota: perKey === undefined ? undefined : { perKey, keyPrefix: prefix },
    logger,
    clock: config.clock,
    backend:
      shared?.backend({ stores, redactor, perKey, journalSize: config.journal.requests }) ??
      ((live) => new LocalNamespaces(live, stores, logger, quota)),
  })
  // A backend that holds namespaces makes the default one there (or reads it) before any request.
  await (await namespaces.hold(namespaces.default))?.release()
  const dataDescription = shared ? `${store.size} pets in the shared database` : stores.description
  const facts = describeSandbox(config, { fromDataFile, description: dataDescription, count: store.size })
  // In the key mode, every key of the family opens the API (and picks its namespace).
  const keys = new KeyRing(
    config.apiKeys,
    prefix === undefined ? undefined : (token) => namespaceOfKey(token, prefix) !== undefined,
  )
  const control = new Control({
    namespaces,
    redactor,
    basePath: spec.basePath,
    namespaceKeyPrefix: prefix,
    namespaceFromTrace: config.namespaceFromTrace,
    traceNamespaceBaseline: config.traceNamespaceBaseline,
    keys,
  })
  // Fidelity and TLS are made even when off: each answers its control operation then too.
  const upstream = fidelity(
    config.upstream && {
      settings: config.upstream,
      basePath: spec.basePath,
      logger,
      unimplemented: UNIMPLEMENTED,
      redact: (text) => redactor.text(text),
    },
  )
  const https = await tls({ tls: config.tls, clientCa: config.tlsClientCa, caOut: config.tlsCaOut })
  // Loaded when the control API is built, after the first answer (control-api.ts), or by telemetry.
  let loadingControlSpec: Promise<SpecOperations> | undefined
  const controlSpec = (): Promise<SpecOperations> =>
    (loadingControlSpec ??= loadControlSpec().catch((error: unknown) => {
      loadingControlSpec = undefined // read again at the next call
      throw error
    }))
  const controlApi =
    config.adminToken === undefined
      ? undefined
      : {
          controlSpec,
          apiSpec: spec,
          token: config.adminToken,
          localOnly: config.adminToken === DEFAULT_ADMIN_TOKEN,
          namespaces,
          bundle: {
            ...(await sandboxFacts(config)),
            redact: (text: string) => redactor.text(text),
            frozenPets: (source: Baseline) => stores.frozenPets(source),
          },
          namespaceFromTrace: config.namespaceFromTrace,
        }
  const telemetry = await openTelemetry({
    env: process.env,
    apis: async () => (controlApi ? [spec, await controlSpec()] : [spec]),
    logger,
    scraped: controlApi && { namespaces, maxNamespaces: config.maxNamespaces },
  })
  if (telemetry.observeWrite) setObserveWrite(telemetry.observeWrite)
  const testData = { corsOrigins: config.adminCorsOrigins, servesHost: hostsServed(config.allowedHosts, config.host) }
  // The MCP tools call this sandbox over loopback HTTP, as the stdio server calls one elsewhere.
  let origin = ''
  const target = () => ({
    url: origin,
    apiKey: config.apiKeys[0] ?? DEFAULT_API_KEY,
    adminToken: config.adminToken,
    allNamespaces: config.mcpAllNamespaces,
    ca: https.trusted,
  })
  // In the order their hooks run (a span starts before anything else of a request) and they close
  // (COVERAGE_FILE is written first, whatever a later close meets).
  const capabilities: Capability[] = [
    verification(config.coverageFile === undefined ? undefined : { file: config.coverageFile, spec, namespaces }),
    telemetry,
    https,
    upstream,
    pact(),
    explorer({ spec, facts, controlApi }),
    ...(config.adminToken === undefined ? [] : [mcp(target, testData)]),
  ]
  const app = createApp(
    {
      spec,
      keys,
      logger,
      control,
      controlApi,
      minStability: config.minStability,
      corsOrigins: config.corsOrigins,
      testData,
      ready: shared?.database.ping,
    },
    capabilities,
  )
  const apiPrefix = `${spec.basePath}/`
  const api = (req: IncomingMessage): boolean => req.url?.startsWith(apiPrefix) === true
  const server = await listen(config.port, config.host, limits, app, api, https.serving)
  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  origin = `${https.serving ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`
  let closing: Promise<void> | undefined
  return {
    server,
    store,
    namespaces,
    tlsCa: https.ca,
    origin,
    baseUrl: origin + spec.basePath,
    dataDescription,
    close: () =>
      (closing ??= stop(server)
        .then(() => namespaces.flush())
        .then(async () => {
          for (const capability of capabilities) await capability.close?.()
        })
        .finally(async () => {
          await shared?.database.close()
          await stores.close()
        })),
  }
}

/** The contract served: spec/openapi.yaml, or the copy SPEC_FILE names, refused with its reason. */
async function loadContract(file: string | undefined): Promise<ApiSpec> {
  if (file === undefined) return loadSpec()
  try {
    const spec = await loadSpec(file)
    const wanted = (await loadSpec()).operations.map((op) => op.operationId).sort()
    const served = spec.operations.map((op) => op.operationId).sort()
    if (wanted.join() !== served.join())
      throw new Error(`its operations must be those of the sandbox (${wanted.join(', ')}), got ${served.join(', ')}`)
    return spec
  } catch (error) {
    throw new ConfigError(`SPEC_FILE ${file} cannot be served: ${(error as Error).message}`)
  }
}

/** What the pages (GET /, /docs) say about this sandbox: configured keys are never among it. */
export function describeSandbox(
  config: Config,
  loaded: { fromDataFile: boolean; description: string; count: number },
): SandboxFacts {
  const source = config.initialData
  return {
    defaultApiKey: config.defaultApiKey ? config.apiKeys[0] : undefined,
    data: {
      source: loaded.fromDataFile ? 'data file' : source.kind,
      description: loaded.description,
      seed: source.kind === 'seed' ? source.seed : null,
      count: loaded.count,
      file: config.dataFile ?? null,
    },
    corsOrigins: config.corsOrigins,
    minStability: config.minStability,
  }
}
