// Bearer authentication: `Authorization: Bearer <API_KEY>`, the scheme name case-insensitive.
import type { IncomingMessage } from 'node:http'
import { ERRORS, HttpError } from '../http/errors.js'

/** The documented key and admin token, in force when none is configured (the command-line clients' defaults too). */
export const DEFAULT_API_KEY = 'sandbox-api-key'
export const DEFAULT_ADMIN_TOKEN = 'sandbox-admin-token'
const REALM = 'Bearer realm="animal-store"'
/** What a bearer token may hold (RFC 6750's token68): every key, token and prefix is checked against it. */
const TOKEN68 = '[A-Za-z0-9\\-._~+/]+=*'
export const BEARER_TOKEN = new RegExp(`^${TOKEN68}$`)
/** BEARER_TOKEN in words, for the messages that refuse a setting. */
export const BEARER_TOKEN_RULE = 'letters, digits and -._~+/, then ='
const BEARER = new RegExp(`^Bearer +(${TOKEN68}) *$`, 'i')

/** Checks a presented token against the configured keys in constant time. */
export class KeyRing {
  readonly #keys: readonly string[]
  readonly #family: ((token: string) => boolean) | undefined

  /** `family` accepts keys beyond the listed ones (the namespace keys of NAMESPACE_KEY_PREFIX). */
  constructor(keys: readonly string[], family?: (token: string) => boolean) {
    this.#keys = [...keys]
    this.#family = family
  }

  has(token: string): boolean {
    if (this.#family?.(token)) return true
    // Every key is compared, so the time does not tell which one matched.
    let found = false
    for (const key of this.#keys) found = constantTimeEqual(key, token) || found
    return found
  }
}

/**
 * Compares in a time that depends on the key's length alone: never on where the strings differ,
 * nor on the presented token's length. It runs on every request, so it stays in plain JS: a
 * hash and timingSafeEqual cost a native call and a buffer each.
 */
export function constantTimeEqual(key: string, presented: string): boolean {
  let diff = key.length ^ presented.length
  const length = presented.length || 1
  for (let i = 0; i < key.length; i++) diff |= key.charCodeAt(i) ^ (presented.charCodeAt(i % length) | 0)
  return diff === 0
}

/** The token of an `Authorization: Bearer <token>` header, if it has that form. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization
  return header === undefined ? undefined : BEARER.exec(header)?.[1]
}

/** What a key ring's tokens are called in the 401 messages. */
export interface Credential {
  readonly name: string
  readonly setting: string
  readonly realm: string
}

export const API_KEY: Credential = { name: 'API key', setting: 'API_KEY', realm: REALM }

/** Answers 401 (with WWW-Authenticate) unless the request carries a known key. */
export function authenticate(req: IncomingMessage, keys: KeyRing, credential: Credential = API_KEY): void {
  const { name, setting, realm } = credential
  const header = req.headers.authorization
  if (header === undefined || header === '') {
    throw new HttpError(ERRORS.unauthorized, `Missing ${name}: send Authorization: Bearer <${setting}>`, {
      'WWW-Authenticate': realm,
    })
  }
  const token = bearerToken(req)
  if (token === undefined) {
    throw new HttpError(ERRORS.unauthorized, `Malformed Authorization header: expected Bearer <${setting}>`, {
      'WWW-Authenticate': `${realm}, error="invalid_request"`,
    })
  }
  if (!keys.has(token)) {
    throw new HttpError(ERRORS.unauthorized, `Invalid ${name}`, {
      'WWW-Authenticate': `${realm}, error="invalid_token"`,
    })
  }
}
