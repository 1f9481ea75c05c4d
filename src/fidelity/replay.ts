// `animal-store-sandbox replay <session> --against <url>`. A sandbox target is replayed into a fresh
// namespace, so it starts from its initial data whatever ran on it before.
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { compareAnswers, DEFAULT_IGNORED, ignoring, type Difference } from './compare.js'
import { idOf, mapIds } from './fidelity.js'
import { cutting } from '../http/secret-forms.js'
import { DEFAULT_API_KEY } from '../pipeline/auth.js'
import { readRecording, type Recorded } from './session.js'
import { DEFAULT_UPSTREAM_MAX_BYTES, DEFAULT_UPSTREAM_TIMEOUT_MS, driftKind, send } from './upstream.js'

export const REPLAY_HELP = `Usage: animal-store-sandbox replay <session> --against <url> [options]

Sends the requests of <session> (a session file that UPSTREAM_MODE=record wrote, or a journal
exported with GET /__admin/requests) to <url>, in order, and prints each difference between the
answers and the recorded ones. Exits 0 without drift, 1 with some, 2 when it cannot replay.

Options:
  --against <url>      the base URL to replay against, ending in /v1 (a sandbox, staging, ...)
  --api-key <key>      the key sent to it (default: UPSTREAM_API_KEY, else ${DEFAULT_API_KEY})
  --ignore <pointers>  JSON pointers left out, comma-separated (default ${DEFAULT_IGNORED.join(',')})
  --timeout-ms <n>     the most one answer may take            (default ${DEFAULT_UPSTREAM_TIMEOUT_MS})
  --json               print the differences as JSON
`

export interface ReplayedDifference extends Difference {
  readonly seq: number
  readonly operationId: string
  readonly request: { readonly method: string; readonly target: string }
}

/** Replays `recording` against `baseUrl`; in the differences, `upstream` is the recorded side. */
export async function replay(
  recording: readonly Recorded[],
  baseUrl: string,
  { apiKey, ignore, timeoutMs }: { apiKey: string | undefined; ignore: readonly string[]; timeoutMs: number },
): Promise<{ namespace: string | undefined; differences: ReplayedDifference[] }> {
  const rules = ignoring(ignore)
  // The target may echo the key it was sent: the report shows none.
  const options = { timeoutMs, maxBytes: DEFAULT_UPSTREAM_MAX_BYTES, redact: cutting([apiKey]) }
  const namespace = (await isSandbox(baseUrl, timeoutMs)) ? `replay-${randomBytes(4).toString('hex')}` : undefined
  const headers: Record<string, string> = namespace === undefined ? {} : { 'x-sandbox-namespace': namespace }
  const ids = new Map<string, string>()
  const differences: ReplayedDifference[] = []
  for (const [index, { operationId, request, response: recorded }] of recording.entries()) {
    const seq = index + 1
    const described = { method: request.method, target: request.target }
    const fetched = await send(baseUrl, apiKey, { ...request, target: mapIds(request.target, ids) }, options, headers)
    if ('failure' in fetched) {
      differences.push({
        seq,
        operationId,
        request: described,
        pointer: '',
        kind: driftKind(fetched.failure),
        sandbox: fetched.reason,
        upstream: recorded.status,
      })
      continue
    }
    const replayed = fetched.answer
    const found =
      'headers' in recorded
        ? compareAnswers(replayed, recorded, rules)
        : replayed.status === recorded.status
          ? []
          : [{ pointer: '/status', kind: 'status' as const, sandbox: replayed.status, upstream: recorded.status }]
    for (const difference of found) differences.push({ seq, operationId, request: described, ...difference })
    const [recordedId, replayedId] = ['body' in recorded ? idOf(recorded.body) : undefined, idOf(replayed.body)]
    if (request.method === 'POST' && recordedId !== undefined && replayedId !== undefined)
      ids.set(recordedId, replayedId)
  }
  return { namespace, differences }
}

/** A sandbox answers /healthz beside its API with the status and count only it gives. */
async function isSandbox(baseUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(new URL('/healthz', baseUrl), { signal: AbortSignal.timeout(timeoutMs) })
    const body = (await response.json()) as { status?: unknown; unhandledRejections?: unknown }
    return body.status === 'ok' && typeof body.unhandledRejections === 'number'
  } catch {
    return false
  }
}

/** The command: returns its exit code. */
export async function runReplay(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  let values, positionals
  try {
    ;({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        against: { type: 'string' },
        'api-key': { type: 'string' },
        ignore: { type: 'string' },
        'timeout-ms': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (error) {
    return usage((error as Error).message)
  }
  if (values.help) {
    process.stdout.write(REPLAY_HELP)
    return 0
  }
  const [file, ...extra] = positionals
  if (file === undefined || extra.length > 0) return usage('give one session file')
  if (values.against === undefined) return usage('--against <url> is required')
  const timeoutMs = values['timeout-ms'] === undefined ? DEFAULT_UPSTREAM_TIMEOUT_MS : Number(values['timeout-ms'])
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000)
    return usage('--timeout-ms must be a whole number from 1 to 60000')
  let recording
  try {
    new URL(values.against)
    recording = await readRecording(file)
  } catch (error) {
    return usage((error as Error).message)
  }
  const { namespace, differences } = await replay(recording, values.against, {
    apiKey: values['api-key'] ?? env['UPSTREAM_API_KEY'] ?? DEFAULT_API_KEY,
    ignore: values.ignore === undefined ? DEFAULT_IGNORED : values.ignore.split(',').map((p) => p.trim()),
    timeoutMs,
  })
  if (values.json)
    process.stdout.write(`${JSON.stringify({ replayed: recording.length, namespace, differences }, null, 2)}\n`)
  else {
    const into = namespace === undefined ? '' : ` (namespace ${namespace})`
    process.stdout.write(`Replayed ${recording.length} requests against ${new URL(values.against).origin}${into}: `)
    process.stdout.write(differences.length === 0 ? 'no drift\n' : `${differences.length} differences\n`)
    for (const d of differences)
      process.stdout.write(
        `  #${d.seq} ${d.operationId} ${d.request.method} ${d.request.target} ${d.pointer || '(no answer)'} ${d.kind}: replayed ${JSON.stringify(d.sandbox)}, recorded ${JSON.stringify(d.upstream)}\n`,
      )
  }
  return differences.length === 0 ? 0 : 1
}

function usage(problem: string): number {
  process.stderr.write(`animal-store-sandbox replay: ${problem}\n\n${REPLAY_HELP}`)
  return 2
}
