// Bearer authentication: `Authorization: Bearer <API_KEY>`, the scheme name case-insensitive.
import { hash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { ERRORS, HttpError } from './errors.js'

const REALM = 'Bearer realm="animal-store"'
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

/** Checks a presented token against the configured keys in constant time. */
export class KeyRing {
  readonly #digests: Buffer[]
  readonly #family: ((token: string) => boolean) | undefined

  /** `family` accepts keys beyond the listed ones (the namespace keys of NAMESPACE_KEY_PREFIX). */
  constructor(keys: readonly string[], family?: (token: string) => boolean) {
    this.#digests = keys.map(digest)
    this.#family = family
  }

  has(token: string): boolean {
    if (this.#family?.(token)) return true
    // Hashing first gives equal-length buffers, so timingSafeEqual neither throws nor leaks the
    // length; every key is compared, so the time does not tell which one matched.
    const presented = digest(token)
    let found = false
    for (const key of this.#digests) found = timingSafeEqual(key, presented) || found
    return found
  }
}

function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer')
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
    throw new HttpError(ERRORS.unauthorized, `Missing ${name}: send Authorization: Bearer <${setting}>`, { 'WWW-Authenticate': realm })
  }
  const token = bearerToken(req)
  if (token === undefined) {
    throw new HttpError(ERRORS.unauthorized, `Malformed Authorization header: expected Bearer <${setting}>`, {
      'WWW-Authenticate': `${realm}, error="invalid_request"`,
    })
  }
  if (!keys.has(token)) {
    throw new HttpError(ERRORS.unauthorized, `Invalid ${name}`, { 'WWW-Authenticate': `${realm}, error="invalid_token"` })
  }
}
