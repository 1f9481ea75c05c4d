// What the journal and the logs may show of a request: the values of credential headers redacted,
// and any configured key or token cut out of every recorded string, in every form it travels in
// (secret-forms.ts).
import { jsonDepth, MAX_JSON_DEPTH } from '../http/body.js'
import { cutting, REDACTED, type Redact } from '../http/secret-forms.js'

export { REDACTED }
/** Headers whose values are credentials: always redacted (REDACT_HEADERS names more). */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]
/** Bodies are recorded up to this size; a longer one is cut and marked. */
export const MAX_RECORDED_BODY = 64 * 1024

export interface RedactorOptions {
  /** Every token made of it and a namespace name is a key too (NAMESPACE_KEY_PREFIX). */
  readonly keyPrefix?: string | undefined
  /** Headers redacted besides CREDENTIAL_HEADERS, in lower case (REDACT_HEADERS). */
  readonly headers?: readonly string[] | undefined
}

/** Removes secrets from what a request carried, before it is recorded anywhere. */
export class Redactor {
  readonly #cut: Redact
  readonly #credentialHeaders: ReadonlySet<string>

  constructor(secrets: readonly string[], { keyPrefix, headers = [] }: RedactorOptions = {}) {
    this.#cut = cutting(secrets, keyPrefix)
    this.#credentialHeaders = new Set([...CREDENTIAL_HEADERS, ...headers])
  }

  text(value: string): string {
    return this.#cut(value)
  }

  headers(raw: Record<string, string | string[] | undefined>): Record<string, string> {
    const headers: Record<string, string> = Object.create(null)
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue
      const joined = Array.isArray(value) ? value.join(', ') : value
      headers[name] = this.#credentialHeaders.has(name) ? this.#credential(name, joined) : this.text(joined)
    }
    return headers
  }

  query(search: string): Record<string, string | string[]> {
    const query: Record<string, string | string[]> = Object.create(null)
    for (const [name, value] of new URLSearchParams(search)) {
      const key = this.text(name)
      const clean = this.text(value)
      const seen = query[key]
      query[key] = seen === undefined ? clean : Array.isArray(seen) ? [...seen, clean] : [seen, clean]
    }
    return query
  }

  /**
   * What a test may verify of a credential without seeing it: the scheme of an Authorization, the
   * names of the cookies sent; any other credential header is shown as REDACTED alone.
   */
  #credential(name: string, value: string): string {
    if (name === 'authorization' || name === 'proxy-authorization') {
      const scheme = /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value)?.[1]
      return scheme ? `${scheme} ${REDACTED}` : REDACTED
    }
    if (name === 'cookie') {
      const names = value.split(';').map((pair) => /^\s*([!#$%&'*+.^_`|~\w-]+)=/.exec(pair)?.[1])
      if (names.every((cookie) => cookie !== undefined))
        return names.map((cookie) => `${this.text(cookie)}=${REDACTED}`).join('; ')
    }
    return REDACTED
  }

  /** The body as JSON when it parses, as text otherwise; null when empty. */
  body(raw: Buffer | undefined): unknown {
    if (raw === undefined || raw.length === 0) return null
    const cut = raw.length > MAX_RECORDED_BODY
    const text = this.text(raw.subarray(0, MAX_RECORDED_BODY).toString('utf8'))
    if (cut) return `${text}… [cut at ${MAX_RECORDED_BODY} bytes]`
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return text
    }
    // Deeper than a body may be, it was refused with a 400; the walks over journal entries
    // (verify's, JSON.stringify's) would overflow on it: it is shown as its text.
    return jsonDepth(text) > MAX_JSON_DEPTH ? text : value
  }
}
