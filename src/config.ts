// Settings: command-line flags win over environment variables, which win over the defaults. Each is
// declared once, in src/settings.ts; here they are read, and the rules that join several are kept.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { JournalLimits } from './journal/journal-memory.js'
import { listensOnLoopbackOnly } from './http/hosts.js'
import { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY } from './pipeline/auth.js'
import { tlsOf, type TlsSetting } from './tls/tls.js'
import type { UpstreamSettings } from './fidelity/upstream.js'
import { ConfigError, LOG_LEVELS, namesOf, SETTINGS, type Setting, type Settings } from './settings.js'
import type { InitialDataSetting } from './store/initial-data.js'
import type { StoreBounds } from './store/limits.js'
import { DEFAULT_COUNT, DEFAULT_SEED } from './store/seed.js'

export { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY } from './pipeline/auth.js'
export { ConfigError, MAX_JOURNAL_SIZE, MAX_MAX_NAMESPACES, MAX_SEED_COUNT } from './settings.js'
export const DEFAULT_PORT = SETTINGS.port.default
export const IN_MEMORY = ':memory:'

export type LogLevel = (typeof LOG_LEVELS)[number]
type Key = keyof typeof SETTINGS
const KEYS = Object.keys(SETTINGS) as Key[]

/** The settings as the sandbox uses them: those of the table, and what the rules below make of them. */
export type Config = Omit<Settings, keyof Derived> & Derived

interface Derived {
  readonly apiKeys: readonly string[]
  /** True when no key was configured and the documented default key is in force. */
  readonly defaultApiKey: boolean
  /** The data file, or undefined for a store in memory only. */
  readonly dataFile: string | undefined
  readonly initialData: InitialDataSetting
  /** The control API's bearer token, or undefined when the control API is off. */
  readonly adminToken: string | undefined
  /** True when no token was configured and the documented default admin token is in force. */
  readonly defaultAdminToken: boolean
  /** Why the control API is off when no setting turned it off (HOST beyond loopback, no ADMIN_TOKEN). */
  readonly controlOffReason: string | undefined
  readonly journal: JournalLimits
  readonly storeBounds: StoreBounds
  /** The real API beside the sandbox; undefined for none. */
  readonly upstream: UpstreamSettings | undefined
  /** What HTTPS is served with; undefined for plain HTTP. */
  readonly tls: TlsSetting | undefined
}

type Env = Record<string, string | undefined>

/** Reads the settings; returns 'help' when --help was asked for. Throws ConfigError naming a bad setting. */
export function loadConfig(argv: readonly string[], env: Env): Config | 'help' {
  const flags = readFlags(argv)
  if (flags['help'] === true) return 'help'
  // `-e API_KEY=…` (the flag's name, singular) would otherwise be ignored, and the default key served.
  if (env['API_KEY'] && !env['API_KEYS'])
    throw new ConfigError('API_KEY is not a setting: the API keys are API_KEYS (comma-separated), e.g. API_KEYS=my-key')

  /** The name each setting was given under, flag or variable. */
  const given = new Map<Key, string>()
  const s = {} as Record<Key, unknown>
  for (const key of KEYS) {
    const declared: Setting<unknown> = SETTINGS[key]
    const { flag, env: variable } = namesOf(key)
    const fromFlag = flag === undefined ? undefined : flags[flag.slice(2)]
    const fromEnv = variable === undefined || env[variable] === '' ? undefined : env[variable]
    const [name, value] =
      fromFlag !== undefined
        ? [flag, typeof fromFlag === 'boolean' ? declared.flagMeans : [fromFlag].flat().join(',')]
        : [variable, fromEnv]
    if (value === undefined || name === undefined) s[key] = declared.default
    else {
      given.set(key, name)
      s[key] = declared.parse(value, name)
    }
  }
  const settings = s as Settings
  return { ...settings, ...derive(settings, (key) => given.get(key)) }
}

/** The rules that join several settings; `given` names a setting as it was given, if it was. */
function derive(s: Settings, given: (key: Key) => string | undefined): Derived {
  const apiKeys = s.apiKeys ?? [DEFAULT_API_KEY]
  // DATABASE_URL wins over DATA_FILE, which the image sets for its volume.
  const dataFile =
    s.databaseUrl !== undefined || s.inMemory || s.dataFile === IN_MEMORY ? undefined : resolve(s.dataFile)
  const seeded = s.seed !== undefined || s.seedCount !== undefined
  if (s.fixtures !== undefined && seeded)
    throw new ConfigError(
      `${given('fixtures')} and ${given('seed') ?? given('seedCount')} both choose the initial data: set one of them`,
    )

  // The default token is published: it may only open a sandbox that other machines cannot reach.
  const reachable = s.admin && !listensOnLoopbackOnly(s.host)
  if (reachable && s.adminToken === DEFAULT_ADMIN_TOKEN)
    throw new ConfigError(
      `${given('adminToken')} is the published default, which HOST ${s.host} would open to other machines: choose a secret one`,
    )
  const controlOffReason =
    reachable && s.adminToken === undefined ? 'HOST lets other machines connect and no ADMIN_TOKEN is set' : undefined
  const adminToken = !s.admin || controlOffReason ? undefined : (s.adminToken ?? DEFAULT_ADMIN_TOKEN)
  // The two tokens open different doors: one must never open the other's.
  if (adminToken !== undefined && apiKeys.includes(adminToken))
    throw new ConfigError(`${given('adminToken') ?? 'ADMIN_TOKEN'} must differ from every API key`)
  if (s.namespaceKeyPrefix !== undefined && adminToken?.startsWith(s.namespaceKeyPrefix))
    throw new ConfigError(
      `${given('namespaceKeyPrefix')} is a prefix of the admin token, which would then open the API: choose another prefix or token`,
    )
  if (s.traceNamespaceBaseline !== undefined && !s.namespaceFromTrace)
    throw new ConfigError(`${given('traceNamespaceBaseline')} applies only with NAMESPACE_FROM_TRACE=on`)
  if (s.journalBytes > s.journalTotalBytes)
    throw new ConfigError(
      `${given('journalBytes') ?? 'JOURNAL_BYTES'} (${s.journalBytes}) is more than ${given('journalTotalBytes') ?? 'JOURNAL_TOTAL_BYTES'} (${s.journalTotalBytes}), which all journals share: raise the total or lower the other`,
    )
  // Without UPSTREAM, its companions would silently do nothing.
  const stray = KEYS.find((key) => SETTINGS[key].upstream && given(key) !== undefined)
  if (s.upstream === undefined && stray !== undefined)
    throw new ConfigError(
      `${namesOf(stray).env} is set but UPSTREAM is not: set the real API's base URL, ending in /v1`,
    )

  return {
    tls: tlsOf(s, given),
    apiKeys,
    defaultApiKey: s.apiKeys === undefined,
    dataFile,
    initialData: seeded
      ? { kind: 'seed', seed: s.seed ?? DEFAULT_SEED, count: s.seedCount ?? DEFAULT_COUNT }
      : { kind: 'fixtures', file: s.fixtures },
    adminToken,
    defaultAdminToken: s.adminToken === undefined,
    controlOffReason,
    journal: { requests: s.journalSize, bytes: s.journalBytes, totalBytes: s.journalTotalBytes },
    storeBounds: {
      maxPets: s.maxPets,
      maxBytes: s.maxStoreBytes,
      maxTotalPets: s.maxTotalPets,
      maxTotalBytes: s.maxTotalBytes,
    },
    upstream:
      s.upstream === undefined
        ? undefined
        : {
            url: s.upstream,
            apiKey: s.upstreamApiKey,
            mode: s.upstreamMode,
            timeoutMs: s.upstreamTimeoutMs,
            maxBytes: s.upstreamMaxBytes,
            ignore: s.upstreamIgnore,
            unsafe: s.upstreamUnsafe,
            sessionDir: resolve(s.sessionDir),
          },
  }
}

/** The command-line flags. Without any, parseArgs is not called: loading it costs a few ms of a start. */
function readFlags(argv: readonly string[]): Record<string, string | boolean | (string | boolean)[] | undefined> {
  if (argv.length === 0) return {}
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const key of KEYS) {
    const { flag } = namesOf(key)
    const declared: Setting<unknown> = SETTINGS[key]
    if (flag !== undefined)
      options[flag.slice(2)] = { type: declared.flagMeans ? 'boolean' : 'string', multiple: declared.repeat === true }
  }
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }).values
  } catch (error) {
    // parseArgs explains some refusals over several lines: a bad setting stops the start with one.
    const message = (error as Error).message.replaceAll('\n', ' ').replace(/\.$/, '')
    throw new ConfigError(`${message}. Run with --help to see the options.`)
  }
}

/** `--help`: the usage, then every setting of the table. */
export function helpText(): string {
  const plain = (markdown: string): string => markdown.replaceAll('`', '')
  const lines = KEYS.flatMap((key) => {
    const declared: Setting<unknown> = SETTINGS[key]
    const { flag, env } = namesOf(key)
    const names = [
      flag && (declared.flagMeans ? flag : `${flag} <value>`),
      env && (declared.flagMeans && flag ? `${env}=${declared.flagMeans}` : env),
    ]
    const shown = plain(shownDefault(declared))
    return [
      `  ${names.filter(Boolean).join(', ')}`,
      `      ${plain(declared.help)}${shown ? ` (default: ${shown})` : ''}`,
    ]
  })
  return `animal-store-sandbox: the Animal Store API as a stateful, seeded sandbox for tests

Usage: animal-store-sandbox [options]
       animal-store-sandbox mcp --url <sandbox> [options]   an MCP server on stdio driving a running sandbox (mcp --help)
       animal-store-sandbox pact verify <pact.json> --url <sandbox>   a Pact verified against a running sandbox (pact --help)
       animal-store-sandbox replay <session> --against <url> [--api-key <key>]   prints the drift, exits 1 on any

Options (each flag has an environment variable beside it; a flag wins over the variable):
  -h, --help
      print this help
${lines.join('\n')}
`
}

/** The README's settings table, made from the table (npm run docs:settings writes it in). */
export function settingsMarkdown(): string {
  const rows: string[][][] = []
  for (const key of KEYS) {
    const declared: Setting<unknown> = SETTINGS[key]
    const { flag, env } = namesOf(key)
    const see = declared.see === undefined ? '' : ` ([${declared.see[0]}](${declared.see[1]}))`
    const cells = [
      flag === undefined ? [] : [`\`${flag}\`${declared.repeat ? ' (repeatable)' : ''}`],
      env === undefined ? [] : [`\`${declared.flagMeans && flag ? `${env}=${declared.flagMeans}` : env}\``],
      [shownDefault(declared)],
      [declared.help + see],
    ]
    const row = rows.at(-1)
    if (row && (declared.sameRow || declared.upstream)) row.forEach((cell, i) => cell.push(...(cells[i] ?? [])))
    else rows.push(cells)
  }
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`
  return [
    line(['flag', 'variable', 'default', 'meaning']),
    line(['---', '---', '---', '---']),
    ...rows.map(([flags = [], envs = [], shown = [], help = []]) =>
      line([flags.join(', '), envs.join(', '), shown.join('; '), help.join('; ')]),
    ),
  ].join('\n')
}

function shownDefault(declared: Setting<unknown>): string {
  if (declared.shown !== undefined) return declared.shown
  const value = declared.default
  return value === undefined ? '' : `\`${Array.isArray(value) ? value.join(',') : String(value)}\``
}
