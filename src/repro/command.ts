// `animal-store-sandbox replay <bundle>`, and `animal-store-sandbox shrink <bundle> -- <command>` (shrink.ts).
// A replay with --against is the fidelity replay of a recorded session (src/fidelity/replay.ts).
import { parseArgs } from 'node:util'
import type { Bundle } from '../control/bundle.js'
import { openBundle, usage } from './read-bundle.js'
import { replay, type Divergence } from './replay.js'
import { stageSandbox, type StagedSandbox } from './restage.js'

export const REPLAY_HELP = `Usage: animal-store-sandbox replay <bundle.json> [--stop-before <n>] [--port <port>] [--json]

Starts a sandbox of its own (in memory, on 127.0.0.1) in the bundle's starting state, sends the
journal's requests in order with the bundle's faults and clock, and compares what each answer was
(operation, status, Error, fault) with what the bundle recorded; then the data they left. Prints
the first divergence: the request, a JSON pointer, expected and got.

  --stop-before <n>   replay requests 1 to n-1, then keep serving that state (the clock and faults
                      as request n would meet them) until Ctrl-C, for a debugger; prints its URL
  --port <port>       the port of that sandbox (default: a free one)
  --json              the result as JSON on stdout

Exits 0 when every answer and the data are as recorded, 1 at a divergence, 2 when it could not
run (a bad argument, a file that is no bundle, a bundle version this sandbox does not read).
`

/** Runs the command; undefined for a replay that is the fidelity one (--against). */
export async function reproCommand(argv: readonly string[]): Promise<number | undefined> {
  const [command, ...args] = argv
  if (command === 'shrink') return (await import('./shrink.js')).shrinkCommand(args)
  if (args.some((arg) => arg === '--against' || arg.startsWith('--against='))) return undefined
  let parsed
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        'stop-before': { type: 'string' },
        port: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    return usage((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    process.stdout.write(REPLAY_HELP)
    return 0
  }
  const [file, ...extra] = positionals
  if (file === undefined || extra.length > 0) return usage('give one bundle file')
  const port = values.port === undefined ? 0 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usage('--port must be a port number')
  const bundle = await openBundle(file)
  if (bundle === undefined) return 2
  const count = bundle.journal.entries.length
  const stopBefore = values['stop-before'] === undefined ? undefined : Number(values['stop-before'])
  if (stopBefore !== undefined && !(Number.isInteger(stopBefore) && stopBefore >= 1 && stopBefore <= count + 1))
    return usage(`--stop-before must be a request's number, from 1 to ${count + 1}`)
  if (bundle.journal.dropped > 0)
    process.stderr.write(
      `warning: the journal had dropped its ${bundle.journal.dropped} oldest entries: the replay starts without them (raise JOURNAL_SIZE)\n`,
    )
  const sandbox = await stageSandbox(bundle, { port })
  try {
    const { sent, divergence } = await replay(bundle, sandbox, stopBefore)
    if (values.json === true)
      process.stdout.write(`${JSON.stringify({ sent, of: count, divergence: divergence ?? null })}\n`)
    else process.stdout.write(report(bundle, sent, divergence))
    if (stopBefore !== undefined && divergence === undefined) await serveUntilStopped(bundle, sandbox, stopBefore)
    return divergence === undefined ? 0 : 1
  } finally {
    await sandbox.close()
  }
}

function report(bundle: Bundle, sent: number, divergence: Divergence | undefined): string {
  const of = `namespace ${bundle.namespace}${bundle.traceId === null ? '' : `, trace ${bundle.traceId}`}`
  if (divergence === undefined)
    return `Replayed ${sent} of ${bundle.journal.entries.length} requests of ${of}: every answer is as recorded\n`
  const { request, method, path, pointer, expected, got } = divergence
  return [
    `Request ${request} of ${bundle.journal.entries.length} (${of}) diverged: ${method} ${path}`,
    `  at ${pointer}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`,
    '',
  ].join('\n')
}

/** Keeps the staged sandbox serving until SIGINT or SIGTERM. */
async function serveUntilStopped(bundle: Bundle, sandbox: StagedSandbox, request: number): Promise<void> {
  const next = bundle.journal.entries[request - 1]
  process.stdout.write(
    [
      `Serving the state before request ${request}${next === undefined ? ' (after the last)' : ` (${next.method} ${next.path})`} at ${sandbox.origin}`,
      `  API:  ${sandbox.baseUrl} (Authorization: Bearer ${sandbox.apiKey}, X-Sandbox-Namespace: ${sandbox.namespace})`,
      `  test control: ${sandbox.origin}/__admin (Bearer ${sandbox.adminToken})`,
      '  Ctrl-C stops it.',
      '',
    ].join('\n'),
  )
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
}
