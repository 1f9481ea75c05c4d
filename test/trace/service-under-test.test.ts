// A service under test that calls the sandbox from its own code (test/trace/service/server.ts, its
// own process, instrumented with OpenTelemetry) and names no namespace: two tests that share it
// at once each find their own calls, by the baggage they send or by the trace they start.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startControlSandbox, type ControlSandbox } from '../support/control.js'
import { ROOT } from '../support/sandbox.js'
import {
  adopt,
  adoption,
  callsOf,
  entriesOf,
  namespacesOf,
  startService as startIn,
  startTrace,
} from './service/harness.js'

/** The service, TypeScript run by tsx; an ES module service needs more: esm-service.test.ts. */
const startService = (t: Test, sandbox: ControlSandbox): Promise<string> =>
  startIn(t, sandbox, ROOT, ['--import', 'tsx', join(ROOT, 'test/trace/service/server.ts')])

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
  const names = (): Promise<string[]> => namespacesOf(sandbox)
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
