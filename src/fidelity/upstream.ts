// The real Animal Store API: one request sent to it, its answer read within a bounded time and
// size, with every secret cut out of it.
import type { ErrorTemplate } from '../http/errors.js'
import type { Answer, Difference } from './compare.js'
import type { Redact } from '../http/secret-forms.js'

export const UPSTREAM_MODES = ['compare', 'record', 'passthrough'] as const
export type UpstreamMode = (typeof UPSTREAM_MODES)[number]

/** How long an upstream may take to answer in full before it counts as timed out. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5000
/** The largest upstream body read (UPSTREAM_MAX_BYTES); past it the rest is never read. */
export const DEFAULT_UPSTREAM_MAX_BYTES = 1024 * 1024

export interface UpstreamSettings {
  /** The real API's base URL, ending in /v1. */
  readonly url: string
  /** Sent as its bearer token; a secret, never written anywhere. */
  readonly apiKey: string | undefined
  readonly mode: UpstreamMode
  readonly timeoutMs: number
  readonly maxBytes: number
  /** JSON pointers compare leaves out. */
  readonly ignore: readonly string[]
  /** Whether compare sends unsafe requests (POST) upstream too: they change the real service. */
  readonly unsafe: boolean
  /** Where record writes its session files, one per namespace. */
  readonly sessionDir: string
}

/** A request as sent to an API: relative to its base URL. */
export interface OutgoingRequest {
  readonly method: string
  /** Path and query after the base URL, e.g. /pets?limit=5. */
  readonly target: string
  readonly body: string | undefined
  readonly contentType: string | undefined
}

export type Failure = 'upstream-unreachable' | 'upstream-timeout' | 'upstream-too-large'

export type Fetched =
  | { readonly answer: Answer; /** The body as received, secrets cut. */ readonly text: string }
  | { readonly failure: Failure; readonly reason: string }

/** The Error a client is answered when the upstream it needed gave no answer to relay. */
export const UPSTREAM_ERRORS = {
  'upstream-unreachable': { status: 502, code: 'upstream_unreachable', message: 'The upstream API did not answer' },
  'upstream-timeout': { status: 504, code: 'upstream_timeout', message: 'The upstream API did not answer in time' },
  'upstream-too-large': {
    status: 502,
    code: 'upstream_too_large',
    message: 'The upstream API answered more than UPSTREAM_MAX_BYTES; it was not read on, nor recorded',
  },
} satisfies Record<Failure, ErrorTemplate>

/** How a failure is reported as drift: an answer too large to read counts as unreadable. */
export function driftKind(failure: Failure): Difference['kind'] {
  return failure === 'upstream-too-large' ? 'unreadable-upstream' : failure
}

export interface SendOptions {
  readonly timeoutMs: number
  readonly maxBytes: number
  /** Cuts the secrets out of the answer, before anything reads it. */
  readonly redact: Redact
}

/**
 * Sends `request` to the API at `baseUrl` with `apiKey` as its bearer token (none when undefined).
 * Its headers are made here, not copied from a client's: only the upstream's own key goes up.
 */
export async function send(
  baseUrl: string,
  apiKey: string | undefined,
  request: OutgoingRequest,
  { timeoutMs, maxBytes, redact }: SendOptions,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<Fetched> {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders }
  if (apiKey !== undefined) headers['authorization'] = `Bearer ${apiKey}`
  if (request.contentType !== undefined) headers['content-type'] = request.contentType
  try {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}${request.target}`, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    const body = await readBounded(response, maxBytes)
    if (body === undefined) return { failure: 'upstream-too-large', reason: `its body is over ${maxBytes} bytes` }
    const text = redact(body)
    return { answer: readAnswer(response.status, redactedHeaders(response.headers, redact), text), text }
  } catch (error) {
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return { failure: 'upstream-timeout', reason: `no full answer within ${timeoutMs} ms` }
    // fetch's own message is "fetch failed": the cause says why (ECONNREFUSED, ENOTFOUND, ...).
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return { failure: 'upstream-unreachable', reason: cause?.code ?? cause?.message ?? (error as Error).message }
  }
}

/**
 * The body as text, counted as it arrives; undefined once it is past `maxBytes` (or says it will
 * be, in its Content-Length), and the rest is never read: the stream is cancelled, its connection closed.
 */
async function readBounded(response: Response, maxBytes: number): Promise<string | undefined> {
  if (response.body === null) return ''
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body.cancel()
    return undefined
  }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(read.value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Each header's value cut: an upstream may answer with a secret it was sent (a key echoed in
 * WWW-Authenticate), and every answer is cut where it is read, before anything shows, records or
 * relays it.
 */
export function redactedHeaders(headers: Iterable<[string, string]>, redact: Redact): Record<string, string> {
  return Object.fromEntries([...headers].map(([name, value]) => [name, redact(value)]))
}

export function readAnswer(status: number, headers: Readonly<Record<string, string>>, text: string): Answer {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
  if (text === '') return { status, headers: lower, body: undefined }
  try {
    return { status, headers: lower, body: JSON.parse(text) as unknown }
  } catch {
    // Not JSON: unreadable, shown by its first characters.
  }
  return { status, headers: lower, body: undefined, unreadable: text.slice(0, 200) }
}
