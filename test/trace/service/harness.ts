// What the trace tests share: a service under test started in its own process, a test's trace,
// the test's call to the service, and the sandbox's journal of the service's calls.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import type { ControlSandbox } from '../../support/control.js'
import { API_KEY, waitFor } from '../../support/sandbox.js'

/** Starts `node <args>` in `cwd` against `sandbox` and answers its URL; it is killed when the test ends. */
export async function startService(t: Test, sandbox: ControlSandbox, cwd: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...withoutNodeOptions(), SANDBOX_URL: sandbox.baseUrl, SANDBOX_API_KEY: API_KEY, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  await waitFor(() => /listening on \d+/.test(output) || child.exitCode !== null, {
    what: 'the service to listen',
  })
  const port = /listening on (\d+)/.exec(output)?.[1]
  if (port === undefined) throw new Error(`the service did not start:\n${output}`)
  return `http://127.0.0.1:${port}`
}

/** One test's trace: its id, and the traceparent of the span it calls the service from. */
export function startTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` }
}

/** What a test does to the service: GET /adopt, which lists a pet and adds one. */
export async function adopt(t: Test, service: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${service}/adopt`, { headers })
  t.match(await res.json(), { listed: 200, created: 201, petId: Number }, 'the service called the sandbox')
}

interface Entry {
  readonly operationId: string
  readonly traceId?: string
  readonly namespace: string
  readonly headers: Record<string, string>
}

export const entriesOf = async (sandbox: ControlSandbox, query: string): Promise<Entry[]> =>
  (await sandbox.control('GET', `/requests?${query}`)).body.entries as Entry[]

/** The journal's entries for `query`, each as its operationId and the `fields` named. */
export const callsOf = async (sandbox: ControlSandbox, query: string, ...fields: Array<'namespace' | 'traceId'>) =>
  (await entriesOf(sandbox, query)).map((entry) => [entry.operationId, ...fields.map((field) => entry[field])])

/** The service's two calls for one adoption, each with `rest`. */
export const adoption = (...rest: string[]): string[][] => [
  ['listPets', ...rest],
  ['createPet', ...rest],
]

/** The names of the sandbox's namespaces. */
export const namespacesOf = async (sandbox: ControlSandbox): Promise<string[]> =>
  (await sandbox.control('GET', '/namespaces')).body.namespaces.map((n: { name: string }) => n.name)

/** The test's environment without the runner's NODE_OPTIONS: the service loads what its command says. */
function withoutNodeOptions(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _runner, ...env } = process.env
  return env
}
