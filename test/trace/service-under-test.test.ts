// The trace recipe's service under test (examples/service-under-test/, an ES module in its own
// process, started as its package.json starts it) names no namespace: two tests that share it at
// once each find their own calls, by the baggage they send or by the trace they start. Without
// OpenTelemetry's loader hook its calls silently land in the default namespace.
import { readFile } from 'node:fs/promises'
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

const RECIPE = join(ROOT, 'examples/service-under-test')

/** The service as the recipe's `npm start` runs it: `node --import ./register.mjs service.mjs`. */
async function startService(t: Test, sandbox: ControlSandbox): Promise<string> {
  const { scripts } = JSON.parse(await readFile(join(RECIPE, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const [node, ...args] = scripts.start.split(' ')
  if (node !== 'node') throw new Error(`the recipe's start script runs ${node}, not node`)
  return startIn(t, sandbox, RECIPE, args)
}

const countIn = async (sandbox: ControlSandbox, query: string): Promise<number> =>
  (await sandbox.control('GET', `/requests?${query}&limit=0`)).body.count as number

// What verify and the coverage report make of a namespace's or a trace's calls: test/journal.
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

  t.equal(await countIn(sandbox, 'namespace=default'), 0, 'the default namespace saw none of them')
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
    const { traceId, traceparent } = startTrace()
    await adopt(t, service, { traceparent })
    t.same(await callsOf(sandbox, `namespace=${traceId}`, 'traceId'), adoption(traceId), 'its namespace: its two calls')
    t.equal(await countIn(sandbox, `namespace=${traceId}&traceId=${traceId}`), 2)
    t.equal(
      (await sandbox.control('GET', `/pets?namespace=${traceId}`)).body.length,
      61,
      'its own store: one pet added',
    )
  }
  await Promise.all([oneTest(t), oneTest(t)])

  t.equal(await countIn(sandbox, 'namespace=default'), 0, 'the default namespace saw none of them')
  const before = await namespacesOf(sandbox)
  t.equal(before.length, 3, "default and the two tests' traces")
  // A request that brings no trace: the service starts its own, which then names the namespace.
  // Its calls reach neither test's namespace, and not the default one either.
  await adopt(t, service, {})
  t.equal(await countIn(sandbox, 'namespace=default'), 0, 'still none in the default namespace')
  const added = (await namespacesOf(sandbox)).filter((name) => !before.includes(name))
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

  t.equal(await countIn(sandbox, 'namespace=default'), 4, "without the filter: both tests' calls")
})

// What the recipe guards against: the same SDK and service without the hook lose the trace and
// the baggage without a word, and the calls land in the default namespace.
t.test('without the loader hook the service loses them: its calls land in default', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startIn(t, sandbox, RECIPE, ['--import', './telemetry.mjs', 'service.mjs'])
  const { traceId, traceparent } = startTrace()
  await adopt(t, service, { traceparent, baggage: 'sandbox.namespace=esm-lost' })
  t.same(await callsOf(sandbox, 'namespace=default', 'namespace'), adoption('default'), 'in the default namespace')
  t.notOk((await namespacesOf(sandbox)).includes('esm-lost'), 'none in its baggage’s')
  t.equal(await countIn(sandbox, `traceId=${traceId}`), 0, 'none carries its trace')
})
