// How the text of a setting is read: each reader gives the value, or throws a ConfigError that
// names the setting as it was given (flag or variable) and says what it must be.
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { ANY_HOST } from './http/hosts.js'
import { BEARER_TOKEN, BEARER_TOKEN_RULE } from './pipeline/auth.js'

export class ConfigError extends Error {
  override name = 'ConfigError'
}

export interface Setting<T> {
  /** The flag, or null for none. */
  readonly flag?: string | null
  /** The environment variable, or null for none. */
  readonly env?: string | null
  /** A flag without a value, standing for this value of the variable. */
  readonly flagMeans?: string
  /** The flag may be repeated (its values are joined with commas). */
  readonly repeat?: true
  /** The value when the setting is not given. */
  readonly default: T
  /** The default as the docs show it, in Markdown; the default itself when left out. */
  readonly shown?: string
  /** What it does, in Markdown. */
  readonly help: string
  /** A link the README adds: [text, target]. */
  readonly see?: readonly [string, string]
  /** Only meaningful with UPSTREAM set: the README shows it in UPSTREAM's row. */
  readonly upstream?: true
  /** The README shows it in the row of the setting before it. */
  readonly sameRow?: true
  /** Reads the value given under `name`; throws a ConfigError naming it. */
  readonly parse: Reader<T>
}

/** Reads a setting's text; `accepts` says which texts it takes, where more can be said than "text". */
export type Reader<T> = ((value: string, name: string) => T) & { readonly accepts?: Accepts }
/**
 * What a reader takes, as JSON Schema (the Helm chart's values schema is made from it): a value of a
 * JSON or YAML file is taken when its text is, so a whole number may be given as a number.
 */
export type Accepts = Readonly<Record<string, unknown>>

export const setting = <T>(declared: Setting<T>): Setting<T> => declared
export const accepting = <T>(accepts: Accepts, parse: (value: string, name: string) => T): Reader<T> =>
  Object.assign(parse, { accepts })
export const fail = (message: string): never => {
  throw new ConfigError(message)
}
export const quoted = (value: string): string => JSON.stringify(value.slice(0, 80))

export const text = (value: string): string => value
export const path = (value: string): string => resolve(value)
export const whole = (min: number, max: number): Reader<number> =>
  accepting({ type: ['integer', 'string'], pattern: '^[0-9]+$', minimum: min, maximum: max }, (value, name) =>
    /^\d+$/.test(value.trim()) && Number(value) >= min && Number(value) <= max
      ? Number(value)
      : fail(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`),
  )
export const oneOf = <T extends string>(values: readonly T[]): Reader<T> =>
  accepting({ enum: [...values] }, (value, name) =>
    values.includes(value as T)
      ? (value as T)
      : fail(`${name} must be one of ${values.join(', ')}, got ${quoted(value)}`),
  )
/** `true` and `false` may be given as JSON's booleans too; `on` and `off` only as text (YAML 1.1 reads a bare on as true). */
export const either = (on: string, off: string): Reader<boolean> =>
  accepting(
    { enum: [on, off].flatMap((text) => (text === 'true' || text === 'false' ? [text, text === 'true'] : [text])) },
    (value, name) => value === on || (value !== off && fail(`${name} must be ${on} or ${off}, got ${quoted(value)}`)),
  )
export const token: Reader<string> = accepting({ type: 'string', pattern: BEARER_TOKEN.source }, (value, name) =>
  BEARER_TOKEN.test(value)
    ? value
    : fail(`${name} has characters a bearer token cannot carry (allowed: ${BEARER_TOKEN_RULE})`),
)
/** A comma-separated list, each item trimmed, empty ones left out. */
export const items = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')

/** `*`, or items each checked by `valid`. */
export const anyOr =
  (what: string, valid: (item: string) => boolean, example: string) =>
  (value: string, name: string): string[] => {
    const list = items(value)
    if (list.length === 0) fail(`${name} is set but holds no ${what}`)
    if (list.includes(ANY_HOST))
      return list.length === 1
        ? list
        : fail(`${name}: * allows any ${what.split(' ')[0]} and cannot be combined with others`)
    for (const item of list) if (!valid(item)) fail(`${name}: ${quoted(item)} is not ${example}`)
    return list
  }
export const isOrigin = (origin: string): boolean => URL.canParse(origin) && new URL(origin).origin === origin
export const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/
/** RFC 9110's token: what a header name is made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Keys are secrets: a message may say which one is wrong, never what it holds. */
export function apiKeys(value: string, name: string): string[] {
  const keys = value.split(',').map((key) => key.trim())
  // Every entry must be a key: `a,,b` is as much a slip as `, ,`, and both are refused alike.
  if (keys.every((key) => key === '')) fail(`${name} is set but holds no key`)
  keys.forEach((key, index) => {
    if (key === '') fail(`${name}: key number ${index + 1} is empty (a comma too many?)`)
    if (!BEARER_TOKEN.test(key))
      fail(
        `${name}: key number ${index + 1} has characters a bearer token cannot carry (allowed: ${BEARER_TOKEN_RULE})`,
      )
  })
  return keys
}

export const headerNames = (value: string, name: string): string[] =>
  value.split(',').map((header) => {
    const trimmed = header.trim()
    if (!HEADER_NAME.test(trimmed))
      fail(`${name}: ${quoted(trimmed)} is not a header name (a comma too many?); e.g. X-Session-Token`)
    return trimmed.toLowerCase()
  })

/** Checked now: a report that cannot be written would otherwise be lost at the end of a CI run. */
export const reportFile = (value: string, name: string): string =>
  existsSync(dirname(resolve(value)))
    ? resolve(value)
    : fail(`${name}: no folder ${dirname(resolve(value))} to write the report in`)

export const existingFile = (value: string, name: string): string =>
  existsSync(value) ? resolve(value) : fail(`${name}: no file at ${value}`)

export const upstreamUrl = (value: string, name: string): string => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (!url || !['http:', 'https:'].includes(url.protocol) || !/\/v1\/?$/.test(url.pathname))
    fail(
      `${name} must be the real API's base URL, http(s) and ending in /v1, e.g. https://staging.example.com/v1; got ${JSON.stringify(value)}`,
    )
  if (url?.username || url?.password) fail(`${name} must not carry credentials: set UPSTREAM_API_KEY`)
  return url?.href.replace(/\/+$/, '') ?? value
}

/** A PostgreSQL connection URL; its password is never repeated in a message. */
export const databaseUrl = (value: string, name: string): string => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || url.hostname === '')
    fail(`${name} must be a PostgreSQL URL such as postgres://user:password@db:5432/sandbox`)
  return value
}

export const jsonPointers = (value: string, name: string): string[] =>
  items(value).map((pointer) =>
    pointer.startsWith('/') ? pointer : fail(`${name}: ${quoted(pointer)} is not a JSON pointer; e.g. /body/*/id`),
  )
