// Bearer authentication: `Authorization: Bearer <API_KEY>`, the scheme name case-insensitive.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { ERRORS, HttpError } from './errors.js'

const REALM = 'Bearer realm="animal-store"'
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

/** Checks a presented token against the configured keys in constant time. */
export class KeyRing {
  readonly #digests: Buffer[]

  constructor(keys: readonly string[]) {
    this.#digests = keys.map(digest)
  }

  has(token: string): boolean {
    // Hashing first gives equal-length buffers, so timingSafeEqual neither throws nor leaks the
    // length; every key is compared, so the time does not tell which one matched.
    const presented = digest(token)
    let found = false
    for (const key of this.#digests) found = timingSafeEqual(key, presented) || found
    return found
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

/** Answers 401 (with WWW-Authenticate) unless the request carries a known key. */
export function authenticate(req: IncomingMessage, keys: KeyRing): void {
  const header = req.headers.authorization
  if (header === undefined || header === '') {
    throw new HttpError(ERRORS.unauthorized, 'Missing API key: send Authorization: Bearer <API_KEY>', { 'WWW-Authenticate': REALM })
  }
  const token = BEARER.exec(header)?.[1]
  if (token === undefined) {
    throw new HttpError(ERRORS.unauthorized, 'Malformed Authorization header: expected Bearer <API_KEY>', {
      'WWW-Authenticate': `${REALM}, error="invalid_request"`,
    })
  }
  if (!keys.has(token)) {
    throw new HttpError(ERRORS.unauthorized, 'Invalid API key', { 'WWW-Authenticate': `${REALM}, error="invalid_token"` })
  }
}
