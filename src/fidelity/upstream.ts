// The real Animal Store API: one request sent to it, its answer read, within a bounded time.
import type { Answer } from './compare.js'

export const UPSTREAM_MODES = ['compare', 'record', 'passthrough'] as const
export type UpstreamMode = (typeof UPSTREAM_MODES)[number]

/** How long an upstream may take to answer in full before it counts as timed out. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5000
/** The most of an upstream's body read; a longer one is cut and counts as unreadable. */
const MAX_BODY_BYTES = 8 * 1024 * 1024

export interface UpstreamSettings {
  /** The real API's base URL, ending in /v1. */
  readonly url: string
  /** Sent as its bearer token; a secret, never written anywhere. */
  readonly apiKey: string | undefined
  readonly mode: UpstreamMode
  readonly timeoutMs: number
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

export type Fetched =
  | { readonly answer: Answer; /** The body as received. */ readonly text: string }
  | { readonly failure: 'upstream-unreachable' | 'upstream-timeout'; readonly reason: string }

/** Sends `request` to the API at `baseUrl` with `apiKey` as its bearer token (none when undefined). */
export async function send(
  baseUrl: string,
  apiKey: string | undefined,
  request: OutgoingRequest,
  timeoutMs: number,
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
    const text = await response.text()
    return { answer: readAnswer(response.status, response.headers, text), text }
  } catch (error) {
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError')
      return { failure: 'upstream-timeout', reason: `no full answer within ${timeoutMs} ms` }
    // fetch's own message is "fetch failed": the cause says why (ECONNREFUSED, ENOTFOUND, ...).
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return { failure: 'upstream-unreachable', reason: cause?.code ?? cause?.message ?? (error as Error).message }
  }
}

export function readAnswer(status: number, headers: Headers | Readonly<Record<string, string>>, text: string): Answer {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers)
  const lower = Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value]))
  if (text === '') return { status, headers: lower, body: undefined }
  try {
    if (Buffer.byteLength(text) <= MAX_BODY_BYTES) return { status, headers: lower, body: JSON.parse(text) as unknown }
  } catch {
    // Not JSON: unreadable, as a body past the bound is.
  }
  return { status, headers: lower, body: undefined, unreadable: text.slice(0, 200) }
}
