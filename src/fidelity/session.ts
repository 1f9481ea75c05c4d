// A recorded session, one JSON Lines file per namespace: a header, then the upstream's exchanges in
// order. No credential is written: requests keep only their content type, answers lose such headers,
// and every secret is cut out of each line.
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { components } from '../contract/admin-types.js'
import type { Answer } from './compare.js'
import type { Redact } from '../http/secret-forms.js'
import type { OutgoingRequest } from './upstream.js'

export const SESSION_FORMAT = 'animal-store-session'
export const SESSION_VERSION = 1

export interface SessionHeader {
  readonly format: typeof SESSION_FORMAT
  readonly version: typeof SESSION_VERSION
  readonly namespace: string
  /** The upstream's base URL, without credentials or query. */
  readonly upstream: string
  readonly startedAt: string
}

export interface RecordedExchange {
  readonly seq: number
  readonly time: string
  readonly operationId: string
  readonly request: OutgoingRequest
  readonly response: Answer
}

/** Headers never written: credentials, cookies, and HTTP's own framing. */
const UNKEPT_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
])

export function keptHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !UNKEPT_HEADERS.has(name.toLowerCase())))
}

/** A base URL as it may be written down: no user, password, query or fragment. */
export function publicUrl(url: string): string {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`
}

/** Appends each namespace's exchanges to its file in `dir`, in the order they are given. */
export class SessionWriter {
  readonly #dir: string
  readonly #upstream: string
  readonly #redact: Redact
  readonly #files = new Map<string, { seq: number; written: Promise<void> }>()

  constructor(dir: string, upstream: string, redact: Redact) {
    this.#dir = dir
    this.#upstream = publicUrl(upstream)
    this.#redact = redact
  }

  /** Resolves once the exchange is on disk. */
  write(namespace: string, operationId: string, request: OutgoingRequest, response: Answer): Promise<void> {
    let file = this.#files.get(namespace)
    const lines: string[] = []
    if (file === undefined) {
      file = { seq: 0, written: mkdir(this.#dir, { recursive: true }).then(() => undefined) }
      this.#files.set(namespace, file)
      const header: SessionHeader = {
        format: SESSION_FORMAT,
        version: SESSION_VERSION,
        namespace,
        upstream: this.#upstream,
        startedAt: new Date().toISOString(),
      }
      lines.push(JSON.stringify(header))
    }
    const exchange: RecordedExchange = {
      seq: ++file.seq,
      time: new Date().toISOString(),
      operationId,
      request,
      response: { ...response, headers: keptHeaders(response.headers) },
    }
    // A key in the request (its target, its body) is cut out as the answer's were. Secrets are
    // bearer tokens, whose characters JSON writes as they are: the cut is the same in the line.
    lines.push(this.#redact(JSON.stringify(exchange)))
    const text = `${lines.join('\n')}\n`
    // A start begins each namespace's session anew: its first exchange replaces an older file.
    const store = file.seq === 1 ? writeFile : appendFile
    file.written = file.written.then(() => store(join(this.#dir, `${namespace}.session.jsonl`), text))
    return file.written
  }
}

/** One request to replay and what it was answered, from a session or a journal export. */
export interface Recorded {
  readonly operationId: string
  readonly request: OutgoingRequest
  /** The whole answer (a session), or its status alone (a journal keeps no bodies). */
  readonly response: Answer | { readonly status: number }
}

/**
 * Reads a session file, or a journal page exported with GET /__admin/requests (its `entries`,
 * oldest first). A journal's paths start with the API's base path, which is cut off.
 */
export async function readRecording(file: string, basePath = '/v1'): Promise<Recorded[]> {
  const text = await readFile(file, 'utf8')
  const first = text.trimStart()
  if (first.startsWith('{"format"')) return readSession(text, file)
  let page: unknown
  try {
    page = JSON.parse(text)
  } catch {
    throw new Error(`${file} is neither a session (${SESSION_FORMAT}) nor a journal export (JSON)`)
  }
  const entries = (page as { entries?: unknown }).entries
  if (!Array.isArray(entries)) throw new Error(`${file}: a journal export has an "entries" array`)
  return (entries as components['schemas']['JournalEntry'][])
    .filter((entry) => entry.operationId !== 'unmatched' && entry.status !== null)
    .sort((a, b) => a.id - b.id)
    .map((entry) => ({
      operationId: entry.operationId,
      request: {
        method: entry.method,
        target: `${entry.path.startsWith(basePath) ? entry.path.slice(basePath.length) : entry.path}${searchOf(entry.query)}`,
        body: entry.body === undefined || entry.body === null ? undefined : JSON.stringify(entry.body),
        contentType: entry.body === undefined || entry.body === null ? undefined : 'application/json',
      },
      response: { status: entry.status as number },
    }))
}

function readSession(text: string, file: string): Recorded[] {
  const [head, ...rest] = text.split('\n').filter((line) => line.trim() !== '')
  const header = JSON.parse(head ?? '{}') as Partial<SessionHeader>
  if (header.format !== SESSION_FORMAT || header.version !== SESSION_VERSION)
    throw new Error(
      `${file}: a session of format ${header.format} version ${header.version}; this command reads version ${SESSION_VERSION}`,
    )
  return rest.map((line) => JSON.parse(line) as RecordedExchange).sort((a, b) => a.seq - b.seq)
}

function searchOf(query: Record<string, string | string[]> | undefined): string {
  const params = new URLSearchParams(
    Object.entries(query ?? {}).flatMap(([name, v]) => [v].flat().map((one): [string, string] => [name, one])),
  )
  const search = params.toString()
  return search === '' ? '' : `?${search}`
}
