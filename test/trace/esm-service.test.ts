// The trace recipe for a service under test written as an ES module (examples/service-under-test/,
// its own process, started as its package.json starts it): with OpenTelemetry's loader hook, each
// test's calls through it land in its trace's namespace; without the hook they silently do not.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startControlSandbox, type ControlSandbox } from '../support/control.js'
import { ROOT } from '../support/sandbox.js'
import { adopt, adoption, callsOf, namespacesOf, startService, startTrace } from './service/harness.js'

const RECIPE = join(ROOT, 'examples/service-under-test')

/** The node arguments of the recipe's `npm start`: `node --import ./register.mjs service.mjs`. */
async function startArguments(): Promise<string[]> {
  const { scripts } = JSON.parse(await readFile(join(RECIPE, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const [node, ...args] = scripts.start.split(' ')
  if (node !== 'node') throw new Error(`the recipe's start script runs ${node}, not node`)
  return args
}

const countIn = async (sandbox: ControlSandbox, query: string): Promise<number> =>
  (await sandbox.admin('GET', `/requests?${query}&limit=0`)).body.count as number

t.test('NAMESPACE_FROM_TRACE=on: an ES module service with the loader hook passes each test’s trace on', async (t) => {
  const sandbox = await startControlSandbox(t, { NAMESPACE_FROM_TRACE: 'on' })
  const service = await startService(t, sandbox, RECIPE, await startArguments())

  const oneTest = async (t: Test): Promise<void> => {
    const { traceId, traceparent } = startTrace()
    await adopt(t, service, { traceparent })
    t.same(await callsOf(sandbox, `namespace=${traceId}`, 'traceId'), adoption(traceId), 'its namespace: its two calls')
  }
  // Two tests at once against the one service: their calls to it overlap.
  await Promise.all([oneTest(t), oneTest(t)])
  t.equal(await countIn(sandbox, 'namespace=default'), 0, 'the default namespace saw none of them')
})

t.test('baggage: an ES module service with the loader hook passes each test’s namespace on', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startService(t, sandbox, RECIPE, await startArguments())

  const oneTest = async (t: Test, name: string): Promise<void> => {
    const { traceId, traceparent } = startTrace()
    await adopt(t, service, { traceparent, baggage: `sandbox.namespace=${name}` })
    t.same(await callsOf(sandbox, `namespace=${name}`, 'namespace', 'traceId'), adoption(name, traceId))
  }
  await Promise.all([oneTest(t, 'esm-a'), oneTest(t, 'esm-b')])
  t.equal(await countIn(sandbox, 'namespace=default'), 0, 'the default namespace saw none of them')
})

// What the recipe guards against: the same SDK and service without the hook lose the trace and
// the baggage without a word, and the calls land in the default namespace.
t.test('without the loader hook the ES module service loses them: its calls land in default', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startService(t, sandbox, RECIPE, ['--import', './telemetry.mjs', 'service.mjs'])
  const { traceId, traceparent } = startTrace()
  await adopt(t, service, { traceparent, baggage: 'sandbox.namespace=esm-lost' })
  t.same(await callsOf(sandbox, 'namespace=default', 'namespace'), adoption('default'), 'in the default namespace')
  t.notOk((await namespacesOf(sandbox)).includes('esm-lost'), 'none in its baggage’s')
  t.equal(await countIn(sandbox, `traceId=${traceId}`), 0, 'none carries its trace')
})
