// Settings: command-line flags win over environment variables, which win over the defaults.
// The same names serve the CLI, the environment and the container.
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { readDateTime } from './control/clock.js'
import { DEFAULT_JOURNAL_LIMITS, type JournalLimits } from './control/journal-memory.js'
import { NAMESPACE_NAME } from './control/namespaces.js'
import { CREDENTIAL_HEADERS } from './control/redactor.js'
import { ANY_HOST, listensOnLoopbackOnly } from './http/hosts.js'
import { BEARER_TOKEN, BEARER_TOKEN_RULE } from './pipeline/auth.js'
import { STABILITIES, type Stability } from './contract/types.js'
import type { DataSource } from './store/initial-data.js'
import { DEFAULT_STORE_BOUNDS, type StoreBounds } from './store/limits.js'
import { DEFAULT_COUNT, DEFAULT_SEED } from './store/seed.js'
import { DEFAULT_IGNORED } from './fidelity/compare.js'
import {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  UPSTREAM_MODES,
  type UpstreamMode,
  type UpstreamSettings,
} from './fidelity/upstream.js'

export const DEFAULT_API_KEY = 'sandbox-api-key'
export const DEFAULT_PORT = 4010
export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_DATA_FILE = 'data/db.json'
export const IN_MEMORY = ':memory:'
export const MAX_SEED_COUNT = 1_000_000
export const DEFAULT_ADMIN_TOKEN = 'sandbox-admin-token'
/** Requests kept per namespace's journal; the oldest is dropped first. */
export const DEFAULT_JOURNAL_SIZE = DEFAULT_JOURNAL_LIMITS.requests
export const MAX_JOURNAL_SIZE = 100_000
/** Bytes each journal and all of them together may hold: from one journal's largest entry to 1 GiB. */
const MIN_JOURNAL_BYTES = 1024 * 1024
const MAX_JOURNAL_BYTES = 1024 * 1024 * 1024
/** Namespaces kept at once, the default one included; the least recently used is evicted first. */
export const DEFAULT_MAX_NAMESPACES = 100
export const MAX_MAX_NAMESPACES = 10_000
/** The largest value of a bound on what the stores keep (MAX_PETS, MAX_STORE_BYTES, ...): 1 TiB. */
const MAX_BOUND = 2 ** 40
export const DEFAULT_SESSION_DIR = 'sessions'
const MAX_UPSTREAM_TIMEOUT_MS = 60_000
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export type LogLevel = (typeof LOG_LEVELS)[number]

export interface Config {
  readonly port: number
  readonly host: string
  readonly apiKeys: readonly string[]
  /** True when no key was configured and the documented default key is in force. */
  readonly defaultApiKey: boolean
  /** The data file, or undefined for a store in memory only. */
  readonly dataFile: string | undefined
  readonly source: DataSource
  readonly logLevel: LogLevel
  /** The control API's bearer token, or undefined when the control API is off. */
  readonly adminToken: string | undefined
  /** True when no token was configured and the documented default admin token is in force. */
  readonly defaultAdminToken: boolean
  /** Why the control API is off when no setting turned it off (HOST beyond loopback, no ADMIN_TOKEN). */
  readonly adminOffReason: string | undefined
  /** Origins a browser may call the control API and read the coverage page from; none by default. */
  readonly adminCorsOrigins: readonly string[]
  /** Host names the control API and the coverage page answer besides loopback, IP addresses and this machine's name; ['*'] for any. */
  readonly allowedHosts: readonly string[]
  /** Whether the tools of /mcp may reach across every namespace (src/mcp/tools.ts). */
  readonly mcpAllNamespaces: boolean
  /** Requests and bytes each namespace's journal keeps, and bytes all journals keep together. */
  readonly journal: JournalLimits
  readonly maxNamespaces: number
  /** When set, any API key made of this prefix and a namespace name is accepted and selects that namespace. */
  readonly namespaceKeyPrefix: string | undefined
  /** A request that names no namespace but carries a valid traceparent works in one named after its trace id. */
  readonly namespaceFromTrace: boolean
  /** The snapshot a trace's namespace starts from (NAMESPACE_FROM_TRACE); undefined: the initial data. */
  readonly traceNamespaceBaseline: string | undefined
  /** The sandbox's notion of now at start, or undefined for real time. */
  readonly clock: Date | undefined
  /** Origins a browser may call the sandbox from (CORS); ['*'] allows any. */
  readonly corsOrigins: readonly string[]
  /** Operations whose x-stability is below this are refused with 403 unstable_operation. */
  readonly minStability: Stability
  /** Where the coverage report is written at shutdown (Markdown for .md, else JSON), or undefined for nowhere. */
  readonly coverageFile: string | undefined
  /** Another copy of the contract to serve instead of spec/openapi.yaml, with the same operations. */
  readonly specFile: string | undefined
  /** Headers the journal redacts besides the credential headers it always redacts, in lower case. */
  readonly redactHeaders: readonly string[]
  /** The pets and bytes each namespace, and all of them together, may keep: past them a create is refused. */
  readonly storeBounds: StoreBounds
  /** The real API the sandbox is compared with, recorded from or passes through to; undefined for none. */
  readonly upstream: UpstreamSettings | undefined
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ConfigError'
  }
}

export const HELP = `animal-store-sandbox: the Animal Store API as a stateful, seeded sandbox for tests

Usage: animal-store-sandbox [options]
       animal-store-sandbox mcp --url <sandbox> [options]   an MCP server on stdio whose tools
                                  drive a running sandbox (mcp --help)
       animal-store-sandbox pact verify <pact.json> --url <sandbox>   a Pact verified
                                  against a running sandbox (pact --help)

Options (each has an environment variable; a flag wins over the variable):
  --port <n>          PORT        port to listen on, 0 for any free one   (default ${DEFAULT_PORT})
  --host <addr>       HOST        address to listen on                     (default ${DEFAULT_HOST})
  --api-key <key>     API_KEYS    accepted API key; repeat the flag, or comma-separate the
                                  variable                                 (default key: ${DEFAULT_API_KEY})
  --data-file <path>  DATA_FILE   JSON file the store persists to; ${IN_MEMORY} keeps it in
                                  memory only                              (default ${DEFAULT_DATA_FILE})
  --in-memory                     same as DATA_FILE=${IN_MEMORY}
  --seed <n>          SEED        generate the initial pets from this seed (default data: fixtures/pets.json)
  --seed-count <n>    SEED_COUNT  how many pets to generate                (default ${DEFAULT_COUNT})
  --fixtures <file>   FIXTURES    load the initial pets from this JSON array of pets
  --log-level <lvl>   LOG_LEVEL   ${LOG_LEVELS.join(', ')}   (default info)
  --cors-origins <o>  CORS_ORIGINS origins browsers may call from, comma-separated,
                                  e.g. http://localhost:3000; * for any   (default *)
  --max-pets <n>      MAX_PETS    pets one namespace keeps; a create past it is refused
                                  with 507 store_full               (default ${DEFAULT_STORE_BOUNDS.maxPets})
  --max-store-bytes <n> MAX_STORE_BYTES  bytes of pets one namespace keeps
                                                                    (default ${DEFAULT_STORE_BOUNDS.maxBytes})
  --max-total-pets <n> MAX_TOTAL_PETS  pets all namespaces keep together
                                                                    (default ${DEFAULT_STORE_BOUNDS.maxTotalPets})
  --max-total-bytes <n> MAX_TOTAL_BYTES  bytes of pets all namespaces keep together
                                                                    (default ${DEFAULT_STORE_BOUNDS.maxTotalBytes})

Test control (the /__admin API):
  --admin-token <t>   ADMIN_TOKEN bearer token of the control API           (default token: ${DEFAULT_ADMIN_TOKEN})
  --no-admin          ADMIN=off   switch the control API off; it is off too when HOST is beyond
                                  loopback and no ADMIN_TOKEN is set
  --admin-cors-origins <o>  ADMIN_CORS_ORIGINS  origins browsers may call the control API and
                                  read /docs/coverage from, comma-separated      (default: none)
  --allowed-hosts <h> ALLOWED_HOSTS  host names the control API and /docs/coverage answer,
                                  comma-separated, * for any (always: localhost, IP addresses,
                                  this machine's name)                     (default: none more)
  --mcp-all-namespaces MCP_ALL_NAMESPACES  let the tools of /mcp reach across every namespace
                                  (listNamespaces, getCoverage all=true)  (default false)
  --journal-size <n>  JOURNAL_SIZE  requests kept per namespace, oldest dropped first
                                  (default ${DEFAULT_JOURNAL_SIZE}, at most ${MAX_JOURNAL_SIZE})
  --journal-bytes <n> JOURNAL_BYTES  bytes the journal keeps per namespace, oldest dropped
                                  first; whichever of it and JOURNAL_SIZE comes first
                                                                    (default ${DEFAULT_JOURNAL_LIMITS.bytes})
  --journal-total-bytes <n> JOURNAL_TOTAL_BYTES  bytes all journals keep together; past it
                                  the journals recorded to least recently drop their oldest
                                                                    (default ${DEFAULT_JOURNAL_LIMITS.totalBytes})
  --max-namespaces <n> MAX_NAMESPACES  namespaces kept at once, the least recently used
                                  evicted first                     (default ${DEFAULT_MAX_NAMESPACES})
  --namespace-key-prefix <p>  NAMESPACE_KEY_PREFIX  accept every API key <p><name> and give
                                  each its own namespace <name>     (default: off)
  --namespace-from-trace  NAMESPACE_FROM_TRACE=on  a request naming no namespace but carrying
                                  a W3C traceparent works in the namespace named after its
                                  trace id                          (default: off)
  --trace-namespace-baseline <s> TRACE_NAMESPACE_BASELINE  the snapshot (POST /__admin/snapshots)
                                  a trace's namespace starts from   (default: the initial data)
  --redact-headers <h> REDACT_HEADERS  more headers the journal shows redacted, comma-separated
                                  (always: ${CREDENTIAL_HEADERS.join(', ')})
  --clock <date-time> CLOCK       start the clock at this time (e.g. 2030-12-05T00:00:00Z)
  --min-stability <s> MIN_STABILITY  refuse operations whose x-stability is below this one:
                                  ${STABILITIES.join(', ')}                 (default ${STABILITIES[0]}: serve all)
  --coverage-file <f> COVERAGE_FILE  write the coverage report of every namespace there at
                                  shutdown; Markdown when it ends in .md, else JSON   (default: none)
  --spec-file <f>     SPEC_FILE   serve this copy of the contract instead of spec/openapi.yaml
                                  (the same operations; e.g. one that marks x-stability)
  -h, --help                      print this help

The real API beside the sandbox (docs/fidelity.md):
  --upstream <url>    UPSTREAM    the real API's base URL, ending in /v1    (default: none)
                      UPSTREAM_API_KEY  its API key (a variable only: never on a command line)
  --upstream-mode <m> UPSTREAM_MODE  ${UPSTREAM_MODES.join(', ')}           (default ${UPSTREAM_MODES[0]})
  --upstream-timeout-ms <n> UPSTREAM_TIMEOUT_MS  the most an upstream answer may take
                                  (default ${DEFAULT_UPSTREAM_TIMEOUT_MS}, at most ${MAX_UPSTREAM_TIMEOUT_MS})
  --upstream-ignore <p> UPSTREAM_IGNORE  JSON pointers compare leaves out, comma-separated; * is
                                  any key or index   (default ${DEFAULT_IGNORED.join(',')})
  --upstream-unsafe   UPSTREAM_UNSAFE=on  compare sends POSTs upstream too (they change it)
  --session-dir <d>   SESSION_DIR where record writes its sessions     (default ${DEFAULT_SESSION_DIR})

Replay a recorded session or an exported journal (prints the drift, exits 1 on any):
  animal-store-sandbox replay <session> --against <url> [--api-key <key>]
`

type Env = Record<string, string | undefined>

/** Reads the settings; returns 'help' when --help was asked for. Throws ConfigError naming a bad setting. */
export function loadConfig(argv: readonly string[], env: Env): Config | 'help' {
  let flags: ReturnType<typeof parseFlags>
  try {
    flags = parseFlags(argv)
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Run with --help to see the options.`)
  }
  if (flags.help) return 'help'

  const setting = (flag: keyof typeof flags, variable: string): { name: string; value: string } | undefined => {
    const fromFlag = flags[flag]
    if (typeof fromFlag === 'string') return { name: `--${flag}`, value: fromFlag }
    const fromEnv = env[variable]
    return fromEnv === undefined || fromEnv === '' ? undefined : { name: variable, value: fromEnv }
  }

  const port = integerSetting(setting('port', 'PORT'), 0, 65535) ?? DEFAULT_PORT
  const host = setting('host', 'HOST')?.value ?? DEFAULT_HOST

  // `-e API_KEY=…` (the flag's name, singular) would otherwise be ignored, and the default key served.
  if (env['API_KEY'] !== undefined && env['API_KEY'] !== '' && (env['API_KEYS'] ?? '') === '')
    throw new ConfigError('API_KEY is not a setting: the API keys are API_KEYS (comma-separated), e.g. API_KEYS=my-key')
  const apiKeys = readApiKeys(flags['api-key'], env['API_KEYS'])

  const dataFileSetting = setting('data-file', 'DATA_FILE')
  const inMemory = flags['in-memory'] === true || dataFileSetting?.value === IN_MEMORY
  const dataFile = inMemory ? undefined : resolve(dataFileSetting?.value ?? DEFAULT_DATA_FILE)

  const seedSetting = setting('seed', 'SEED')
  const countSetting = setting('seed-count', 'SEED_COUNT')
  const fixturesSetting = setting('fixtures', 'FIXTURES')
  const seed = integerSetting(seedSetting, 0, 2 ** 32 - 1)
  const count = integerSetting(countSetting, 0, MAX_SEED_COUNT)
  if (fixturesSetting && (seedSetting || countSetting)) {
    throw new ConfigError(
      `${fixturesSetting.name} and ${(seedSetting ?? countSetting)?.name} both choose the initial data: set one of them`,
    )
  }
  const source: DataSource =
    seed !== undefined || count !== undefined
      ? { kind: 'seed', seed: seed ?? DEFAULT_SEED, count: count ?? DEFAULT_COUNT }
      : { kind: 'fixtures', file: fixturesSetting ? resolve(fixturesSetting.value) : undefined }

  const logLevelSetting = setting('log-level', 'LOG_LEVEL')
  const logLevel = (logLevelSetting?.value ?? 'info') as LogLevel
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      `${logLevelSetting?.name} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevelSetting?.value)}`,
    )
  }

  const corsOrigins = readCorsOrigins(setting('cors-origins', 'CORS_ORIGINS')) ?? ['*']
  const adminCorsOrigins = readCorsOrigins(setting('admin-cors-origins', 'ADMIN_CORS_ORIGINS')) ?? []
  const allowedHosts = readAllowedHosts(setting('allowed-hosts', 'ALLOWED_HOSTS'))

  const adminSetting = env['ADMIN']
  if (adminSetting !== undefined && adminSetting !== '' && !['on', 'off'].includes(adminSetting)) {
    throw new ConfigError(`ADMIN must be on or off, got ${JSON.stringify(adminSetting)}`)
  }
  const adminOff = flags['no-admin'] === true || adminSetting === 'off'
  const adminTokenSetting = setting('admin-token', 'ADMIN_TOKEN')
  if (adminTokenSetting && !BEARER_TOKEN.test(adminTokenSetting.value)) {
    throw new ConfigError(
      `${adminTokenSetting.name} has characters a bearer token cannot carry (allowed: ${BEARER_TOKEN_RULE})`,
    )
  }
  // The default token is published: it may only open a sandbox that other machines cannot reach.
  const reachable = !adminOff && !listensOnLoopbackOnly(host)
  if (reachable && adminTokenSetting?.value === DEFAULT_ADMIN_TOKEN) {
    throw new ConfigError(
      `${adminTokenSetting.name} is the published default, which HOST ${host} would open to other machines: choose a secret one`,
    )
  }
  const adminOffReason =
    reachable && adminTokenSetting === undefined
      ? 'HOST lets other machines connect and no ADMIN_TOKEN is set'
      : undefined
  const adminToken =
    adminOff || adminOffReason !== undefined ? undefined : (adminTokenSetting?.value ?? DEFAULT_ADMIN_TOKEN)
  // The two tokens open different doors: one must never open the other's.
  if (adminToken !== undefined && (apiKeys ?? [DEFAULT_API_KEY]).includes(adminToken)) {
    throw new ConfigError(`${adminTokenSetting?.name ?? 'ADMIN_TOKEN'} must differ from every API key`)
  }

  const allNamespacesSetting = env['MCP_ALL_NAMESPACES']
  if (
    allNamespacesSetting !== undefined &&
    allNamespacesSetting !== '' &&
    !['true', 'false'].includes(allNamespacesSetting)
  )
    throw new ConfigError(`MCP_ALL_NAMESPACES must be true or false, got ${JSON.stringify(allNamespacesSetting)}`)
  const mcpAllNamespaces = flags['mcp-all-namespaces'] === true || allNamespacesSetting === 'true'

  const prefixSetting = setting('namespace-key-prefix', 'NAMESPACE_KEY_PREFIX')
  if (prefixSetting && !BEARER_TOKEN.test(prefixSetting.value)) {
    throw new ConfigError(
      `${prefixSetting.name} has characters a bearer token cannot carry (allowed: ${BEARER_TOKEN_RULE})`,
    )
  }
  if (prefixSetting && adminToken?.startsWith(prefixSetting.value)) {
    throw new ConfigError(
      `${prefixSetting.name} is a prefix of the admin token, which would then open the API: choose another prefix or token`,
    )
  }

  const fromTraceSetting = env['NAMESPACE_FROM_TRACE']
  if (fromTraceSetting !== undefined && fromTraceSetting !== '' && !['on', 'off'].includes(fromTraceSetting))
    throw new ConfigError(`NAMESPACE_FROM_TRACE must be on or off, got ${JSON.stringify(fromTraceSetting)}`)
  const namespaceFromTrace = flags['namespace-from-trace'] === true || fromTraceSetting === 'on'
  // A snapshot's name, not the snapshot: it may be made after the start (each request checks).
  const baselineSetting = setting('trace-namespace-baseline', 'TRACE_NAMESPACE_BASELINE')
  if (baselineSetting && !NAMESPACE_NAME.test(baselineSetting.value))
    throw new ConfigError(
      `${baselineSetting.name} must be a snapshot's name: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got ${JSON.stringify(baselineSetting.value.slice(0, 80))}`,
    )
  if (baselineSetting && !namespaceFromTrace)
    throw new ConfigError(`${baselineSetting.name} applies only with NAMESPACE_FROM_TRACE=on`)

  const clockSetting = setting('clock', 'CLOCK')
  const clockTime = clockSetting === undefined ? undefined : readDateTime(clockSetting.value)
  if (clockTime?.problem !== undefined) throw new ConfigError(`${clockSetting?.name} ${clockTime.problem}`)
  const clock = clockTime?.date

  const stabilitySetting = setting('min-stability', 'MIN_STABILITY')
  const minStability = (stabilitySetting?.value ?? STABILITIES[0]) as Stability
  if (!STABILITIES.includes(minStability)) {
    throw new ConfigError(
      `${stabilitySetting?.name} must be one of ${STABILITIES.join(', ')}, got ${JSON.stringify(stabilitySetting?.value)}`,
    )
  }

  const coverageSetting = setting('coverage-file', 'COVERAGE_FILE')
  const coverageFile = coverageSetting === undefined ? undefined : resolve(coverageSetting.value)
  // Checked now: a report that cannot be written would otherwise be lost at the end of a CI run.
  if (coverageFile !== undefined && !existsSync(dirname(coverageFile))) {
    throw new ConfigError(`${coverageSetting?.name}: no folder ${dirname(coverageFile)} to write the report in`)
  }
  const specSetting = setting('spec-file', 'SPEC_FILE')
  if (specSetting && !existsSync(specSetting.value)) {
    throw new ConfigError(`${specSetting.name}: no file at ${specSetting.value}`)
  }

  return {
    port,
    host,
    apiKeys: apiKeys ?? [DEFAULT_API_KEY],
    defaultApiKey: apiKeys === undefined,
    dataFile,
    source,
    logLevel,
    adminToken,
    defaultAdminToken: adminTokenSetting === undefined,
    adminOffReason,
    adminCorsOrigins,
    allowedHosts,
    mcpAllNamespaces,
    journal: readJournalLimits(setting),
    maxNamespaces:
      integerSetting(setting('max-namespaces', 'MAX_NAMESPACES'), 1, MAX_MAX_NAMESPACES) ?? DEFAULT_MAX_NAMESPACES,
    namespaceKeyPrefix: prefixSetting?.value,
    namespaceFromTrace,
    traceNamespaceBaseline: baselineSetting?.value,
    clock,
    corsOrigins,
    minStability,
    coverageFile,
    specFile: specSetting === undefined ? undefined : resolve(specSetting.value),
    redactHeaders: readHeaderNames(setting('redact-headers', 'REDACT_HEADERS')),
    storeBounds: {
      maxPets: integerSetting(setting('max-pets', 'MAX_PETS'), 1, MAX_BOUND) ?? DEFAULT_STORE_BOUNDS.maxPets,
      maxBytes:
        integerSetting(setting('max-store-bytes', 'MAX_STORE_BYTES'), 1, MAX_BOUND) ?? DEFAULT_STORE_BOUNDS.maxBytes,
      maxTotalPets:
        integerSetting(setting('max-total-pets', 'MAX_TOTAL_PETS'), 1, MAX_BOUND) ?? DEFAULT_STORE_BOUNDS.maxTotalPets,
      maxTotalBytes:
        integerSetting(setting('max-total-bytes', 'MAX_TOTAL_BYTES'), 1, MAX_BOUND) ??
        DEFAULT_STORE_BOUNDS.maxTotalBytes,
    },
    upstream: readUpstream(setting, flags['upstream-unsafe'] === true, env),
  }
}

type UpstreamFlag = 'upstream' | 'upstream-mode' | 'upstream-timeout-ms' | 'upstream-ignore' | 'session-dir'

/** UPSTREAM and its companions; none of them without UPSTREAM, which would silently do nothing. */
function readUpstream(
  setting: (flag: UpstreamFlag, variable: string) => { name: string; value: string } | undefined,
  unsafeFlag: boolean,
  env: Env,
): UpstreamSettings | undefined {
  const urlSetting = setting('upstream', 'UPSTREAM')
  const others: UpstreamFlag[] = ['upstream-mode', 'upstream-timeout-ms', 'upstream-ignore', 'session-dir']
  if (urlSetting === undefined) {
    const stray = others.find((flag) => setting(flag, flag.toUpperCase().replaceAll('-', '_')) !== undefined)
    if (stray !== undefined || env['UPSTREAM_API_KEY'])
      throw new ConfigError(
        `${stray === undefined ? 'UPSTREAM_API_KEY' : stray.toUpperCase().replaceAll('-', '_')} is set but UPSTREAM is not: set the real API's base URL, ending in /v1`,
      )
    return undefined
  }
  let url: URL | undefined
  try {
    url = new URL(urlSetting.value)
  } catch {
    url = undefined
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || !/\/v1\/?$/.test(url.pathname))
    throw new ConfigError(
      `${urlSetting.name} must be the real API's base URL, http(s) and ending in /v1, e.g. https://staging.example.com/v1; got ${JSON.stringify(urlSetting.value)}`,
    )
  if (url.username !== '' || url.password !== '')
    throw new ConfigError(`${urlSetting.name} must not carry credentials: set UPSTREAM_API_KEY`)
  const modeSetting = setting('upstream-mode', 'UPSTREAM_MODE')
  const mode = (modeSetting?.value ?? UPSTREAM_MODES[0]) as UpstreamMode
  if (!UPSTREAM_MODES.includes(mode))
    throw new ConfigError(
      `${modeSetting?.name} must be one of ${UPSTREAM_MODES.join(', ')}, got ${JSON.stringify(modeSetting?.value)}`,
    )
  const ignoreSetting = setting('upstream-ignore', 'UPSTREAM_IGNORE')
  const ignore =
    ignoreSetting === undefined
      ? DEFAULT_IGNORED
      : ignoreSetting.value
          .split(',')
          .map((pointer) => pointer.trim())
          .filter((pointer) => pointer !== '')
  for (const pointer of ignore)
    if (!pointer.startsWith('/'))
      throw new ConfigError(`${ignoreSetting?.name}: ${JSON.stringify(pointer)} is not a JSON pointer; e.g. /body/*/id`)
  const unsafeSetting = env['UPSTREAM_UNSAFE']
  if (unsafeSetting !== undefined && unsafeSetting !== '' && !['on', 'off'].includes(unsafeSetting))
    throw new ConfigError(`UPSTREAM_UNSAFE must be on or off, got ${JSON.stringify(unsafeSetting)}`)
  const apiKey = env['UPSTREAM_API_KEY']
  if (apiKey && !BEARER_TOKEN.test(apiKey))
    throw new ConfigError(`UPSTREAM_API_KEY has characters a bearer token cannot carry (allowed: ${BEARER_TOKEN_RULE})`)
  return {
    url: url.href.replace(/\/+$/, ''),
    apiKey: apiKey || undefined,
    mode,
    timeoutMs:
      integerSetting(setting('upstream-timeout-ms', 'UPSTREAM_TIMEOUT_MS'), 1, MAX_UPSTREAM_TIMEOUT_MS) ??
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    ignore,
    unsafe: unsafeFlag || unsafeSetting === 'on',
    sessionDir: resolve(setting('session-dir', 'SESSION_DIR')?.value ?? DEFAULT_SESSION_DIR),
  }
}

/** RFC 9110's token: what a header name is made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** A comma-separated list of header names, in lower case as Node gives them. */
function readHeaderNames(setting: { name: string; value: string } | undefined): string[] {
  if (setting === undefined) return []
  const names = setting.value.split(',').map((name) => name.trim())
  for (const name of names)
    if (!HEADER_NAME.test(name))
      throw new ConfigError(
        `${setting.name}: ${JSON.stringify(name)} is not a header name (a comma too many?); e.g. X-Session-Token`,
      )
  return names.map((name) => name.toLowerCase())
}

function readJournalLimits(
  setting: (
    flag: 'journal-size' | 'journal-bytes' | 'journal-total-bytes',
    variable: string,
  ) => { name: string; value: string } | undefined,
): JournalLimits {
  const bytesSetting = setting('journal-bytes', 'JOURNAL_BYTES')
  const totalSetting = setting('journal-total-bytes', 'JOURNAL_TOTAL_BYTES')
  const limits: JournalLimits = {
    requests: integerSetting(setting('journal-size', 'JOURNAL_SIZE'), 0, MAX_JOURNAL_SIZE) ?? DEFAULT_JOURNAL_SIZE,
    bytes: integerSetting(bytesSetting, MIN_JOURNAL_BYTES, MAX_JOURNAL_BYTES) ?? DEFAULT_JOURNAL_LIMITS.bytes,
    totalBytes: integerSetting(totalSetting, MIN_JOURNAL_BYTES, MAX_JOURNAL_BYTES) ?? DEFAULT_JOURNAL_LIMITS.totalBytes,
  }
  if (limits.bytes > limits.totalBytes)
    throw new ConfigError(
      `${bytesSetting?.name ?? 'JOURNAL_BYTES'} (${limits.bytes}) is more than ${totalSetting?.name ?? 'JOURNAL_TOTAL_BYTES'} (${limits.totalBytes}), which all journals share: raise the total or lower the other`,
    )
  return limits
}

/** `*`, or a list of exact origins (scheme://host[:port]) as browsers send them in the Origin header. */
function readCorsOrigins(setting: { name: string; value: string } | undefined): string[] | undefined {
  if (setting === undefined) return undefined
  const origins = setting.value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  if (origins.length === 0) throw new ConfigError(`${setting.name} is set but holds no origin`)
  if (origins.includes('*')) {
    if (origins.length > 1)
      throw new ConfigError(`${setting.name}: * allows any origin and cannot be combined with others`)
    return origins
  }
  for (const origin of origins) {
    let parsed: URL | undefined
    try {
      parsed = new URL(origin)
    } catch {
      parsed = undefined
    }
    if (!parsed || parsed.origin === 'null' || parsed.origin !== origin) {
      throw new ConfigError(
        `${setting.name}: ${JSON.stringify(origin)} is not an origin; write it as the browser sends it, e.g. http://localhost:3000 (no path, no trailing slash)`,
      )
    }
  }
  return origins
}

/** `*`, or host names as a Host header carries them, without the port. */
function readAllowedHosts(setting: { name: string; value: string } | undefined): string[] {
  if (setting === undefined) return []
  const hosts = setting.value
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '')
  if (hosts.length === 0) throw new ConfigError(`${setting.name} is set but holds no host name`)
  if (hosts.includes(ANY_HOST)) {
    if (hosts.length > 1)
      throw new ConfigError(`${setting.name}: ${ANY_HOST} allows any host and cannot be combined with others`)
    return hosts
  }
  for (const host of hosts) {
    if (!HOST_NAME.test(host))
      throw new ConfigError(
        `${setting.name}: ${JSON.stringify(host)} is not a host name; write it as in a URL without the port, e.g. animal-store`,
      )
  }
  return hosts
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/

function integerSetting(
  setting: { name: string; value: string } | undefined,
  min: number,
  max: number,
): number | undefined {
  if (setting === undefined) return undefined
  const value = Number(setting.value)
  if (!/^\d+$/.test(setting.value.trim()) || value < min || value > max) {
    throw new ConfigError(
      `${setting.name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(setting.value)}`,
    )
  }
  return value
}

/** Keys are secrets: a message may say which one is wrong, never what it holds. */
function readApiKeys(fromFlags: string[] | undefined, fromEnv: string | undefined): string[] | undefined {
  const [name, raw] = fromFlags?.length
    ? ['--api-key', fromFlags]
    : fromEnv !== undefined && fromEnv !== ''
      ? ['API_KEYS', fromEnv.split(',')]
      : [undefined, []]
  if (name === undefined) return undefined
  const keys = raw.map((key) => key.trim())
  // Every entry must be a key: `a,,b` is as much a slip as `, ,`, and both are refused alike.
  if (keys.every((key) => key === '')) throw new ConfigError(`${name} is set but holds no key`)
  keys.forEach((key, index) => {
    if (key === '') throw new ConfigError(`${name}: key number ${index + 1} is empty (a comma too many?)`)
    if (!BEARER_TOKEN.test(key))
      throw new ConfigError(
        `${name}: key number ${index + 1} has characters a bearer token cannot carry (allowed: ${BEARER_TOKEN_RULE})`,
      )
  })
  return keys
}

/** The command-line flags. Without any, parseArgs is not called: loading it costs a few ms of a start. */
function parseFlags(argv: readonly string[]): Partial<ReturnType<typeof parseAllFlags>> {
  return argv.length === 0 ? {} : parseAllFlags(argv)
}

function parseAllFlags(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string', multiple: true },
      'data-file': { type: 'string' },
      'in-memory': { type: 'boolean' },
      seed: { type: 'string' },
      'seed-count': { type: 'string' },
      fixtures: { type: 'string' },
      'log-level': { type: 'string' },
      'admin-token': { type: 'string' },
      'no-admin': { type: 'boolean' },
      'mcp-all-namespaces': { type: 'boolean' },
      'journal-size': { type: 'string' },
      'journal-bytes': { type: 'string' },
      'journal-total-bytes': { type: 'string' },
      'max-namespaces': { type: 'string' },
      'namespace-key-prefix': { type: 'string' },
      'namespace-from-trace': { type: 'boolean' },
      'trace-namespace-baseline': { type: 'string' },
      clock: { type: 'string' },
      'cors-origins': { type: 'string' },
      'admin-cors-origins': { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'min-stability': { type: 'string' },
      'coverage-file': { type: 'string' },
      'spec-file': { type: 'string' },
      'redact-headers': { type: 'string' },
      'max-pets': { type: 'string' },
      'max-store-bytes': { type: 'string' },
      'max-total-pets': { type: 'string' },
      'max-total-bytes': { type: 'string' },
      upstream: { type: 'string' },
      'upstream-mode': { type: 'string' },
      'upstream-timeout-ms': { type: 'string' },
      'upstream-ignore': { type: 'string' },
      'upstream-unsafe': { type: 'boolean' },
      'session-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values
}
