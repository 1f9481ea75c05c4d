// Replays a bundle in a sandbox staged from it (restage.ts): arms its faults where they were armed,
// sets the clock each request saw, sends the journal's requests in order, and compares what the
// replay's own journal records of each answer with what the bundle's recorded. The answer's body
// is not in a journal: its operation, status, Error and fault are what is compared (docs/bundle.md).
import type { Bundle, BundleEntry } from '../control/bundle.js'
import type { Fault } from '../namespaces/faults.js'
import { ANY_OPERATION } from '../namespaces/faults.js'
import { firstDifference } from './difference.js'
import type { StagedSandbox } from './restage.js'

export interface Divergence {
  /** The request's number in the journal, from 1; past the last one for the data at the end. */
  readonly request: number
  readonly method: string
  readonly path: string
  readonly pointer: string
  readonly expected: unknown
  readonly got: unknown
}

export interface ReplayResult {
  /** Requests sent. */
  readonly sent: number
  readonly divergence: Divergence | undefined
}

/**
 * Headers the replay sets itself, or that belong to one connection: Java's HttpClient asks every
 * plain-HTTP request to upgrade to h2c, and fetch refuses to send an `upgrade`.
 */
const NOT_RESENT = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'x-sandbox-namespace',
])

/**
 * Sends the bundle's requests, up to the `until`th (excluded; all without it), to `sandbox`;
 * stops at the first divergence. With `until`, the clock and faults are left as request `until` meets them.
 */
export async function replay(bundle: Bundle, sandbox: StagedSandbox, until?: number): Promise<ReplayResult> {
  const entries = bundle.journal.entries
  const arming = armingPoints(entries, bundle.faults)
  const last = until === undefined ? entries.length : Math.min(until - 1, entries.length)
  let seen = 0
  for (let i = 0; i <= last; i++) {
    for (const fault of arming.get(i) ?? []) await sandbox.control('POST', '/faults', newFault(fault))
    const entry = entries[i]
    if (entry === undefined) break
    await sandbox.control('POST', '/clock', {
      now: new Date(Date.parse(entry.time) + bundle.clock.offsetMs).toISOString(),
    })
    if (i === last) break
    await send(sandbox, entry)
    const page = (await sandbox.control('GET', `/requests?limit=1&after=${seen}`)) as { entries: BundleEntry[] }
    const got = page.entries[0]
    seen = got?.id ?? seen
    const difference = firstDifference(answerOf(entry), got === undefined ? null : answerOf(got))
    if (difference)
      return { sent: i + 1, divergence: { request: i + 1, method: entry.method, path: entry.path, ...difference } }
  }
  if (until !== undefined || bundle.traceId !== null) return { sent: last, divergence: undefined }
  // A namespace's bundle also holds the data its calls left: the replay's must be the same.
  const pets = await sandbox.control('GET', '/pets')
  const difference = firstDifference({ now: { pets: bundle.now.pets } }, { now: { pets } })
  return {
    sent: last,
    divergence: difference && { request: last + 1, method: 'GET', path: '/__admin/pets', ...difference },
  }
}

/** What the journal records of an answer. The fault's id is the order it was armed in, not compared. */
function answerOf(entry: BundleEntry): Record<string, unknown> {
  const { operationId, status, error, fault } = entry
  return { operationId, status, error, fault: fault?.replace(/^fault \d+: /, 'fault: ') ?? null }
}

/**
 * Before which request each fault was armed: a fault counts every call it sees, so it saw the last
 * `seen` calls it could act on (authenticated calls of its operation). One that saw more than the
 * journal holds is armed before the first.
 */
function armingPoints(entries: readonly BundleEntry[], faults: readonly Fault[]): Map<number, Fault[]> {
  const points = new Map<number, Fault[]>()
  for (const fault of [...faults].sort((a, b) => a.id - b.id)) {
    const calls: number[] = []
    entries.forEach((entry, index) => {
      if (faultSees(fault, entry)) calls.push(index)
    })
    const at = fault.seen === 0 ? entries.length : (calls[calls.length - fault.seen] ?? 0)
    points.set(at, [...(points.get(at) ?? []), fault])
  }
  return points
}

/** Whether a fault counted the call: one of its operation's, that passed the API key and stability checks. */
function faultSees(fault: Fault, entry: BundleEntry): boolean {
  if (entry.operationId === 'unmatched' || entry.status === 401 || entry.error?.code === 'unstable_operation')
    return false
  return fault.operationId === ANY_OPERATION || fault.operationId === entry.operationId
}

/** The fault as it was armed: what POST /__admin/faults takes. */
export function newFault({ operationId, status, delayMs, fault, times, after, probability, seed }: Fault): unknown {
  return Object.fromEntries(
    Object.entries({ operationId, status, delayMs, fault, times, after, probability, seed }).filter(
      ([, value]) => value !== undefined,
    ),
  )
}

async function send(sandbox: StagedSandbox, entry: BundleEntry): Promise<void> {
  const url = new URL(entry.path, sandbox.origin)
  for (const [name, value] of Object.entries(entry.query))
    for (const one of [value].flat()) url.searchParams.append(name, one)
  const headers: Record<string, string> = { 'x-sandbox-namespace': sandbox.namespace }
  for (const [name, value] of Object.entries(entry.headers)) if (!NOT_RESENT.has(name)) headers[name] = value
  // Where the recorded answer refused the key, the replay sends one its sandbox refuses too.
  const refused = entry.status === 401 && entry.error?.message.startsWith('Invalid')
  const authorization = headers['authorization']
  if (authorization !== undefined)
    headers['authorization'] = authorization.replace('[REDACTED]', refused ? 'redacted-key' : sandbox.apiKey)
  const body =
    entry.body === null ? undefined : typeof entry.body === 'string' ? entry.body : JSON.stringify(entry.body)
  try {
    const res = await fetch(url, { method: entry.method, headers, body })
    await res.arrayBuffer()
  } catch {
    // A fault that breaks the connection: the journal has recorded the call all the same.
  }
}
