// A service under test that calls the sandbox from its own code (test/trace/service/server.ts, its
// own process, instrumented with OpenTelemetry) and names no namespace: two tests that share it
// at once each find their own calls, by the baggage they send or by the trace they start.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startControlSandbox, type ControlSandbox } from '../support/control.js'
import { API_KEY, ROOT, waitFor } from '../support/sandbox.js'

/** Starts the service against `sandbox` and answers its URL; it is killed when the test ends. */
async function startService(t: Test, sandbox: ControlSandbox): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/trace/service/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, SANDBOX_URL: sandbox.baseUrl, SANDBOX_API_KEY: API_KEY, PORT: '0' },
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
function startTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` }
}

/** What a test does to the service: GET /adopt, which lists a pet and adds one. */
async function adopt(t: Test, service: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${service}/adopt`, { headers })
  t.match(await res.json(), { listed: 200, created: 201, petId: Number }, 'the service called the sandbox')
}

interface Entry {
  readonly operationId: string
  readonly traceId?: string
  readonly namespace: string
  readonly headers: Record<string, string>
}

const entriesOf = async (sandbox: ControlSandbox, query: string): Promise<Entry[]> =>
  (await sandbox.admin('GET', `/requests?${query}`)).body.entries as Entry[]

/** The journal's entries for `query`, each as its operationId and the `fields` named. */
const callsOf = async (sandbox: ControlSandbox, query: string, ...fields: Array<'namespace' | 'traceId'>) =>
  (await entriesOf(sandbox, query)).map((entry) => [entry.operationId, ...fields.map((field) => entry[field])])

/** The service's two calls for one adoption, each with `rest`. */
const adoption = (...rest: string[]): string[][] => [
  ['listPets', ...rest],
  ['createPet', ...rest],
]

// What verify and the coverage report make of a namespace's or a trace's calls: test/control.
t.test('baggage: each test names its namespace, and finds its calls there alone', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startService(t, sandbox)

  const traceIds: string[] = []
  const oneTest = async (t: Test, name: string): Promise<void> => {
    const trace = startTrace()
    traceIds.push(trace.traceId)
    await adopt(t, service, { traceparent: trace.traceparent, baggage: `sandbox.namespace=${name}` })
    const query = `namespace=${name}`
    t.same(await callsOf(sandbox, query, 'namespace', 'traceId'), adoption(name, trace.traceId), 'its two calls')
    // The service's own span is the parent now: the instrumentation passed the trace on, no copy.
    for (const entry of await entriesOf(sandbox, query))
      t.not(entry.headers['traceparent']?.split('-')[2], trace.spanId)
  }
  // Two tests at once against the one service: their calls to it overlap.
  await Promise.all([oneTest(t, 'test-a'), oneTest(t, 'test-b')])

  t.equal((await sandbox.admin('GET', '/requests?limit=0')).body.count, 0, 'the default namespace saw none of them')
  // Without the baggage the same calls land in the default namespace: what the baggage changed.
  // The service starts a trace of its own for a request that brings none, so they carry its id.
  await adopt(t, service, {})
  const untraced = await callsOf(sandbox, '', 'traceId')
  const ownTrace = untraced[0]?.[1] as string
  t.same(
    untraced,
    adoption(ownTrace),
    "a call with no baggage and no trace: the default namespace, the service's trace",
  )
  t.notOk(traceIds.includes(ownTrace), "neither test's")
})

t.test('NAMESPACE_FROM_TRACE=on: each test’s trace is its namespace', async (t) => {
  const sandbox = await startControlSandbox(t, { NAMESPACE_FROM_TRACE: 'on' })
  const service = await startService(t, sandbox)

  const oneTest = async (t: Test): Promise<void> => {
    const trace = startTrace()
    await adopt(t, service, { traceparent: trace.traceparent })
    const { traceId } = trace
    t.same(await callsOf(sandbox, `namespace=${traceId}`, 'traceId'), adoption(traceId), 'its namespace: its two calls')
    t.equal((await sandbox.admin('GET', `/requests?namespace=${traceId}&traceId=${traceId}&limit=0`)).body.count, 2)
    t.equal((await sandbox.admin('GET', `/pets?namespace=${traceId}`)).body.length, 61, 'its own store: one pet added')
  }
  await Promise.all([oneTest(t), oneTest(t)])

  t.equal((await sandbox.admin('GET', '/requests?limit=0')).body.count, 0, 'the default namespace saw none of them')
  const names = async (): Promise<string[]> =>
    (await sandbox.admin('GET', '/namespaces')).body.namespaces.map((n: { name: string }) => n.name)
  const before = await names()
  t.equal(before.length, 3, "default and the two tests' traces")
  // A request that brings no trace: the service starts its own, which then names the namespace.
  // Its calls reach neither test's namespace, and not the default one either.
  await adopt(t, service, {})
  t.equal((await sandbox.admin('GET', '/requests?limit=0')).body.count, 0, 'still none in the default namespace')
  const added = (await names()).filter((name) => !before.includes(name))
  t.equal(added.length, 1, "one namespace more: the service's own trace")
  t.same(await callsOf(sandbox, `namespace=${added[0]}`, 'traceId'), adoption(added[0] as string))
})

t.test('one shared namespace: a traceId filter keeps each test’s calls', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startService(t, sandbox)

  const oneTest = async (t: Test): Promise<void> => {
    const { traceId, traceparent } = startTrace()
    await adopt(t, service, { traceparent })
    const calls = await callsOf(sandbox, `traceId=${traceId}`, 'namespace', 'traceId')
    t.same(calls, adoption('default', traceId), 'its trace: its two calls, in the default namespace')
  }
  await Promise.all([oneTest(t), oneTest(t)])

  t.equal((await sandbox.admin('GET', '/requests?limit=0')).body.count, 4, "without the filter: both tests' calls")
})
