// The settings, each declared once: its flag and variable (by default `--<key in kebab-case>` and
// the key in SCREAMING_CASE), its default, how its text is read and what it does. The config type,
// `--help` and the README's settings table (npm run docs:settings) are made from this table.
import { DEFAULT_JOURNAL_LIMITS } from './journal/journal-memory.js'
import { CREDENTIAL_HEADERS } from './journal/redactor.js'
import { STABILITIES } from './contract/types.js'
import { dateTimeSetting } from './namespaces/clock.js'
import { NAMESPACE_SETTINGS } from './namespaces/namespace-settings.js'
import { DEFAULT_IGNORED } from './fidelity/compare.js'
import { DEFAULT_UPSTREAM_MAX_BYTES, DEFAULT_UPSTREAM_TIMEOUT_MS, UPSTREAM_MODES } from './fidelity/upstream.js'
import { TLS_SETTINGS } from './tls/tls.js'
import { VERIFICATION_SETTINGS } from './verification/settings.js'
import * as read from './setting-readers.js'
import { setting, type Setting } from './setting-readers.js'
import { DEFAULT_STORE_BOUNDS } from './store/limits.js'
import { DEFAULT_COUNT } from './store/seed.js'

export { ConfigError, type Setting } from './setting-readers.js'
export { MAX_MAX_NAMESPACES } from './namespaces/namespace-settings.js'
export const MAX_SEED_COUNT = 1_000_000
export const MAX_JOURNAL_SIZE = 100_000
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
/** From one journal's largest entry to 1 GiB. */
const JOURNAL_BYTES = read.whole(1024 * 1024, 1024 * 1024 * 1024)
/** The largest value of a bound on what the stores keep: 1 TiB. */
const BOUND = read.whole(1, 2 ** 40)
const ORIGINS = read.anyOr(
  'origin',
  read.isOrigin,
  'an origin; write it as the browser sends it, e.g. http://localhost:3000 (no path, no trailing slash)',
)
const some = <T>(value: T | undefined): T | undefined => value
const none = undefined as string | undefined

export const SETTINGS = {
  port: setting({ default: 4010, parse: read.whole(0, 65535), help: 'port to listen on; `0` picks a free one' }),
  host: setting({ default: '127.0.0.1', parse: read.text, help: 'address to listen on' }),
  ...TLS_SETTINGS,
  apiKeys: setting({
    flag: '--api-key',
    repeat: true,
    default: some<string[]>(undefined),
    shown: '`sandbox-api-key`',
    parse: read.apiKeys,
    help: 'accepted API keys: repeat the flag, or comma-separate the variable (`API_KEY`, singular, stops the start naming it); configured keys are never printed or logged',
  }),
  dataFile: setting({
    default: 'data/db.json',
    parse: read.text,
    help: 'the JSON file the store persists to; `:memory:` keeps it in memory only',
  }),
  databaseUrl: setting({
    default: none,
    shown: 'none',
    parse: read.databaseUrl,
    help: 'keep everything in this PostgreSQL database, shared by every replica given the same URL; `DATA_FILE` is then not used',
    see: ['Topologies', 'docs/deploy.md'],
  }),
  inMemory: setting({
    env: null,
    flagMeans: 'on',
    default: false,
    shown: 'off',
    parse: read.either('on', 'off'),
    help: 'same as `DATA_FILE=:memory:`',
  }),
  seed: setting({
    default: some<number>(undefined),
    shown: '',
    parse: read.whole(0, 2 ** 32 - 1),
    help: 'generate the initial pets from this seed (0 to 2³²−1)',
  }),
  seedCount: setting({
    default: some<number>(undefined),
    shown: `\`${DEFAULT_COUNT}\``,
    parse: read.whole(0, MAX_SEED_COUNT),
    help: 'how many pets to generate (0 to 1,000,000)',
  }),
  fixtures: setting({
    default: none,
    shown: '`fixtures/pets.json`',
    parse: read.path,
    help: 'a JSON array of pets to start from, validated against the spec',
  }),
  logLevel: setting({
    default: 'info' as const,
    parse: read.oneOf(LOG_LEVELS),
    help: `pino level: ${LOG_LEVELS.map((l) => `\`${l}\``).join(', ')}`,
  }),
  corsOrigins: setting({
    default: ['*'],
    shown: '`*`',
    parse: ORIGINS,
    help: 'origins a browser app may call from, comma-separated',
    see: ['CORS', 'docs/explorer.md#calling-it-from-a-browser-app-cors'],
  }),
  maxPets: setting({
    default: DEFAULT_STORE_BOUNDS.maxPets,
    parse: BOUND,
    help: 'pets one namespace keeps; a create past it is `507 store_full`',
    see: ['bounds', 'docs/decisions.md#bounds-on-what-the-sandbox-keeps'],
  }),
  maxStoreBytes: setting({
    default: DEFAULT_STORE_BOUNDS.maxBytes,
    shown: `\`${DEFAULT_STORE_BOUNDS.maxBytes}\` (256 MiB)`,
    parse: BOUND,
    help: "bytes of pets one namespace keeps (each pet's JSON and a newline)",
  }),
  maxTotalPets: setting({
    default: DEFAULT_STORE_BOUNDS.maxTotalPets,
    parse: BOUND,
    help: 'pets all namespaces keep together',
  }),
  maxTotalBytes: setting({
    default: DEFAULT_STORE_BOUNDS.maxTotalBytes,
    shown: `\`${DEFAULT_STORE_BOUNDS.maxTotalBytes}\` (1 GiB)`,
    parse: BOUND,
    help: 'bytes of pets all namespaces keep together',
  }),
  adminToken: setting({
    default: none,
    shown: '`sandbox-admin-token`, from loopback only',
    parse: read.token,
    help: 'bearer token of the control API; without one, a `HOST` beyond loopback turns the control API off',
    see: ['Security', '#security'],
  }),
  admin: setting({
    flag: '--no-admin',
    flagMeans: 'off',
    default: true,
    shown: 'on',
    parse: read.either('on', 'off'),
    help: 'switches the control API off',
  }),
  adminCorsOrigins: setting({
    default: [] as string[],
    shown: 'none',
    parse: ORIGINS,
    help: 'origins a browser app may call the control API and read `/docs/coverage` from, as `CORS_ORIGINS`',
  }),
  allowedHosts: setting({
    default: [] as string[],
    shown: 'none',
    parse: read.anyOr(
      'host name',
      (host) => read.HOST_NAME.test(host),
      'a host name; write it as in a URL without the port, e.g. animal-store',
    ),
    help: "more host names (no port, comma-separated) the control API and `/docs/coverage` answer to, besides localhost, IP addresses and this machine's name; `*` for any",
  }),
  mcpAllNamespaces: setting({
    flagMeans: 'true',
    default: false,
    parse: read.either('true', 'false'),
    help: 'lets the tools of `/mcp` reach across every namespace (`listNamespaces`, `getCoverage` with `all=true`); without it each call acts on one',
    see: ['MCP', 'docs/mcp.md'],
  }),
  journalSize: setting({
    default: DEFAULT_JOURNAL_LIMITS.requests,
    parse: read.whole(0, MAX_JOURNAL_SIZE),
    help: `requests the journal keeps per namespace, oldest dropped first (at most ${MAX_JOURNAL_SIZE}); fewer when \`JOURNAL_BYTES\` is reached first; coverage counts every call whatever it keeps`,
    see: ['how much it keeps', 'docs/control-api.md#how-much-the-journal-keeps'],
  }),
  journalBytes: setting({
    default: DEFAULT_JOURNAL_LIMITS.bytes,
    shown: `\`${DEFAULT_JOURNAL_LIMITS.bytes}\` (4 MiB)`,
    parse: JOURNAL_BYTES,
    help: 'bytes the journal keeps per namespace, oldest dropped first (1 MiB to 1 GiB)',
  }),
  journalTotalBytes: setting({
    default: DEFAULT_JOURNAL_LIMITS.totalBytes,
    shown: `\`${DEFAULT_JOURNAL_LIMITS.totalBytes}\` (64 MiB)`,
    parse: JOURNAL_BYTES,
    help: 'bytes all journals keep together; past it, the namespaces recorded to least recently drop their oldest first',
  }),
  ...NAMESPACE_SETTINGS,
  redactHeaders: setting({
    default: [] as string[],
    shown: 'none',
    parse: read.headerNames,
    help: `more headers (comma-separated) the journal shows as \`[REDACTED]\`, besides ${CREDENTIAL_HEADERS.map((h) => `\`${h}\``).join(', ')}, which it always redacts`,
  }),
  clock: setting({
    default: some<Date>(undefined),
    shown: 'real time',
    parse: dateTimeSetting,
    help: "the sandbox's notion of now at start (e.g. `2030-12-05T00:00:00Z`)",
  }),
  minStability: setting({
    default: STABILITIES[0],
    parse: read.oneOf(STABILITIES),
    help: `refuse operations whose \`x-stability\` is below: ${STABILITIES.map((s) => `\`${s}\``).join(', ')}`,
    see: ['x-stability', 'docs/coverage.md#x-stability'],
  }),
  ...VERIFICATION_SETTINGS,
  specFile: setting({
    default: none,
    shown: '`spec/openapi.yaml`',
    parse: read.existingFile,
    help: 'serve this copy of the contract instead (the same operations; e.g. one marking `x-stability`)',
  }),
  upstream: setting({
    default: none,
    shown: 'none',
    parse: read.upstreamUrl,
    help: "the real API's base URL, ending in `/v1`, to compare with, record from or pass through to",
    see: ['Is it faithful?', '#is-it-faithful'],
  }),
  upstreamApiKey: setting({
    flag: null,
    upstream: true,
    default: none,
    shown: 'none',
    parse: read.token,
    help: "the upstream's API key (a variable only, never logged or written)",
  }),
  upstreamMode: setting({
    upstream: true,
    default: UPSTREAM_MODES[0],
    parse: read.oneOf(UPSTREAM_MODES),
    help: UPSTREAM_MODES.map((m) => `\`${m}\``).join(', '),
  }),
  upstreamTimeoutMs: setting({
    upstream: true,
    default: DEFAULT_UPSTREAM_TIMEOUT_MS,
    parse: read.whole(1, 60_000),
    help: 'the most one upstream answer may take',
  }),
  upstreamMaxBytes: setting({
    upstream: true,
    default: DEFAULT_UPSTREAM_MAX_BYTES,
    shown: `\`${DEFAULT_UPSTREAM_MAX_BYTES}\` (1 MiB)`,
    parse: read.whole(1024, 1024 * 1024 * 1024),
    help: 'the largest upstream body read; a larger one is a `502` (1 KiB to 1 GiB)',
  }),
  upstreamIgnore: setting({
    upstream: true,
    default: DEFAULT_IGNORED,
    shown: `\`${DEFAULT_IGNORED.join(',')}\``,
    parse: read.jsonPointers,
    help: 'JSON pointers compare leaves out, comma-separated; `*` is any key or index',
  }),
  upstreamUnsafe: setting({
    upstream: true,
    flagMeans: 'on',
    default: false,
    shown: 'off',
    parse: read.either('on', 'off'),
    help: 'compare sends POSTs upstream too (they change it)',
  }),
  sessionDir: setting({
    upstream: true,
    default: 'sessions',
    parse: read.path,
    help: 'where `record` writes its sessions',
  }),
}

export type Settings = { -readonly [K in keyof typeof SETTINGS]: (typeof SETTINGS)[K]['default'] }

/** A setting's flag and variable, as its declaration or its key gives them. */
export function namesOf(key: keyof typeof SETTINGS): { flag: string | undefined; env: string | undefined } {
  const declared: Setting<unknown> = SETTINGS[key]
  const kebab = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
  return {
    flag: declared.flag === null ? undefined : (declared.flag ?? `--${kebab}`),
    env: declared.env === null ? undefined : (declared.env ?? kebab.toUpperCase().replaceAll('-', '_')),
  }
}
