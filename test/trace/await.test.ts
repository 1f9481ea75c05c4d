// A service under test (test/trace/service/server.ts, its own process, instrumented with
// OpenTelemetry) that calls the sandbox from a background job, 0 to 2 s after the test's request:
// two tests at once each wait on the server for their own call, with no sleep; a job that runs
// after its test ended is a stray call of that test. The same suite written with sleeps is timed
// beside it.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startControlSandbox, type ControlSandbox } from '../support/control.js'
import { ROOT } from '../support/sandbox.js'
import { startService as startIn, startTrace } from './service/harness.js'

const startService = (t: Test, sandbox: ControlSandbox): Promise<string> =>
  startIn(t, sandbox, ROOT, ['--import', 'tsx', join(ROOT, 'test/trace/service/server.ts')])

/** How long a test that sleeps must sleep to see a job that takes up to 2 s. */
const SLEEP_MS = 2500

/** One test: its namespace reset, the service asked to adopt later, in the test's trace and baggage. */
async function startAdoption(
  t: Test,
  sandbox: ControlSandbox,
  service: string,
  name: string,
  query = '',
): Promise<void> {
  t.equal((await sandbox.control('POST', `/reset?namespace=${name}`)).status, 200)
  const { traceparent } = startTrace()
  const res = await fetch(`${service}/adopt-later?name=${name}${query}`, {
    method: 'POST',
    headers: { traceparent, baggage: `sandbox.namespace=${name}` },
  })
  t.equal(res.status, 202, 'the service answered before its job ran')
}

const expectations = (name: string) => [{ operationId: 'createPet', count: 1, body: { name } }]

t.test('two tests at once each await their own background call, and none sleeps', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startService(t, sandbox)
  const oneTest = async (t: Test, name: string): Promise<void> => {
    await startAdoption(t, sandbox, service, name)
    const { body } = await sandbox.control('POST', `/requests/await?namespace=${name}`, {
      timeoutMs: 10_000,
      expectations: expectations(name),
      noOtherCalls: true,
    })
    t.match(body, { passed: true, endedBy: 'met', strays: [] }, `${name}: its job's call, and no other`)
    t.equal((await sandbox.control('DELETE', `/namespaces/${name}`)).status, 200, 'the test ends')
  }
  const started = performance.now()
  await Promise.all([oneTest(t, 'await-a'), oneTest(t, 'await-b')])
  const awaited = performance.now() - started

  // The same suite written with sleeps: as long as the slowest job may take, every time.
  const slept = performance.now()
  const sleepingTest = async (t: Test, name: string): Promise<void> => {
    await startAdoption(t, sandbox, service, name)
    await new Promise((resolve) => setTimeout(resolve, SLEEP_MS))
    const { body } = await sandbox.control('POST', `/verify?namespace=${name}`, { expectations: expectations(name) })
    t.equal(body.passed, true, `${name}: its job's call, after ${SLEEP_MS} ms asleep`)
  }
  await Promise.all([sleepingTest(t, 'sleep-a'), sleepingTest(t, 'sleep-b')])
  const sleeping = performance.now() - slept
  t.comment(`awaited: ${Math.round(awaited)} ms; with ${SLEEP_MS} ms sleeps: ${Math.round(sleeping)} ms`)
})

t.test('a job that runs after its test ended is a stray call of that test', async (t) => {
  const sandbox = await startControlSandbox(t)
  const service = await startService(t, sandbox)
  // The job waits for POST /release: it runs after the test's end, whatever the machine's speed.
  await startAdoption(t, sandbox, service, 'late', '&held')
  const ended = await sandbox.control('POST', '/namespaces/late/end')
  t.equal(ended.status, 200)
  await fetch(`${service}/release`, { method: 'POST' })
  const { body } = await sandbox.control('POST', '/requests/await?namespace=late', {
    timeoutMs: 10_000,
    expectations: expectations('late'),
    noOtherCalls: true,
  })
  t.match(body, { endedBy: 'met', passed: false, strays: [{ reason: 'after-end', test: 'late' }] })
  const strays = (await sandbox.control('GET', '/requests/strays?test=late')).body
  t.match(strays, {
    count: 1,
    strays: [{ reason: 'after-end', test: 'late', namespace: 'late', entry: { operationId: 'createPet' } }],
  })
  t.match(strays.strays[0].traceId, /^[0-9a-f]{32}$/, 'the trace the test started, carried by the job')
  t.match(strays.strays[0].parentSpanId, /^[0-9a-f]{16}$/)
})
