// Stray calls (GET /__admin/requests/strays), verify's noOtherCalls, and retries as one call
// (logicalCalls), against a real server on a real port.
import t from 'tap'
import { startControlSandbox } from '../support/control.js'

const TRACE_A = '0af7651916cd43dd8448eb211c80319c'
const TRACE_B = '4bf92f3577b34da6a3ce929d0e0e4736'
const SPAN = 'b7ad6b7169203331'
const inTrace = (traceId: string, span = SPAN): Record<string, string> => ({
  traceparent: `00-${traceId}-${span}-01`,
})
const inNamespace = (name: string): Record<string, string> => ({ 'x-sandbox-namespace': name })

t.test('stray calls, each tied to the test that caused it', async (t) => {
  const { control, api } = await startControlSandbox(t, { NAMESPACE_FROM_TRACE: 'on' })
  await control('POST', '/reset?namespace=test-a')
  await control('POST', '/reset?namespace=test-b')
  await api('GET', '/pets', undefined, { ...inNamespace('test-a'), ...inTrace(TRACE_A) })
  await api('GET', '/pets', undefined, { ...inNamespace('test-b'), ...inTrace(TRACE_B) })
  t.same(
    (await control('GET', '/requests/strays')).body,
    { count: 0, strays: [], message: 'no stray calls (every test)' },
    'every call so far is its test’s',
  )

  // No namespace, no trace: the default namespace, no test's.
  await api('GET', '/pets')
  // A's trace in B's namespace, and in no namespace at all (its trace's, in trace mode).
  await api('GET', '/pets', undefined, { ...inNamespace('test-b'), ...inTrace(TRACE_A, 'c0ffee00c0ffee00') })
  await api('GET', '/pets', undefined, inTrace(TRACE_A))
  const { body } = await control('GET', '/requests/strays')
  t.same(
    body.strays.map((s: { reason: string; test: string | null; namespace: string }) => [s.reason, s.test, s.namespace]),
    [
      ['no-test', null, 'default'],
      ['other-test', 'test-a', 'test-b'],
      ['other-test', 'test-a', TRACE_A],
    ],
  )
  t.match(body.strays[1], {
    traceId: TRACE_A,
    parentSpanId: 'c0ffee00c0ffee00',
    entry: { method: 'GET', path: '/v1/pets' },
  })
  t.equal(
    body.message,
    [
      'stray calls (test none, test-a):',
      '- no-test: listPets (GET /v1/pets) answered 200, in namespace default',
      `- other-test: listPets (GET /v1/pets) answered 200, in namespace test-b, trace ${TRACE_A}`,
      `- other-test: listPets (GET /v1/pets) answered 200, in namespace ${TRACE_A}, trace ${TRACE_A}`,
    ].join('\n'),
    'the message an assertion of no stray calls raises',
  )
  t.equal((await control('GET', '/requests/strays?test=test-a')).body.count, 2)

  // noOtherCalls: A fails for its call that landed in B; B is not blamed for it.
  const expectations = [{ operationId: 'listPets', count: 1 }]
  const a = (await control('POST', '/verify?namespace=test-a', { expectations, noOtherCalls: true })).body
  t.match(a, { passed: false, strict: true, unexpected: [] })
  t.equal(a.strays.length, 2)
  t.match(
    a.message,
    /stray call \(no other calls\): #2 GET \/v1\/pets → 200 \(listPets\) in namespace test-b, with its trace/,
  )
  t.equal(
    (await control('POST', '/verify?namespace=test-a', { expectations })).body.passed,
    true,
    'without it, A passes',
  )
  const b = (await control('POST', '/verify?namespace=test-b', { expectations, noOtherCalls: true })).body
  t.match(b, { passed: true, strays: [], unexpected: [] })
  t.equal(
    (await control('POST', '/verify?namespace=test-b', { expectations, strict: true })).body.passed,
    false,
    'strict alone counts A’s call in B as unexpected',
  )
})

t.test('a call into a namespace after its test ended is a stray of that test', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await control('POST', '/reset?namespace=ended')
  await api('GET', '/pets', undefined, inNamespace('ended'))
  t.equal((await control('POST', '/namespaces/nowhere/end')).status, 404)
  const end = await control('POST', '/namespaces/ended/end')
  t.match(end.body, { namespace: 'ended', endedAt: /^\d{4}-/ })
  await api('GET', '/pets', undefined, inNamespace('ended'))
  t.match((await control('GET', '/requests/strays')).body, {
    count: 1,
    strays: [{ reason: 'after-end', test: 'ended', namespace: 'ended', entry: { id: 2 } }],
  })
  // Without trace mode, the default namespace's calls are nobody's strays.
  await api('GET', '/pets')
  t.equal((await control('GET', '/requests/strays')).body.count, 1)

  // Deleting a namespace ends its test: a late call, naming it by baggage, makes it anew and is a stray.
  await api('GET', '/pets', undefined, { ...inNamespace('gone'), ...inTrace(TRACE_B) })
  t.equal((await control('DELETE', '/namespaces/gone')).status, 200)
  await api('GET', '/pets', undefined, { baggage: 'sandbox.namespace=gone' })
  // Its trace stays its own: a call in it in another namespace is its stray too.
  await api('GET', '/pets', undefined, inTrace(TRACE_B))
  t.match((await control('GET', '/requests/strays?test=gone')).body, {
    count: 2,
    strays: [
      { reason: 'after-end', test: 'gone', namespace: 'gone' },
      { reason: 'other-test', test: 'gone', namespace: 'default', traceId: TRACE_B },
    ],
  })

  // A reset begins the namespace's next test: its calls are its own again.
  await control('POST', '/reset?namespace=ended')
  await api('GET', '/pets', undefined, inNamespace('ended'))
  t.match((await control('GET', '/requests/strays?test=ended')).body, {
    count: 0,
    message: 'no stray calls (test ended)',
  })
})

t.test('retries of one call count as one with logicalCalls', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const pet = { name: 'Rex', categoryId: 1 }
  // One create sent three times with its Idempotency-Key, another twice under one traceparent.
  for (let i = 0; i < 3; i++) await api('POST', '/pets', pet, { 'idempotency-key': 'create-rex' })
  for (let i = 0; i < 2; i++) await api('POST', '/pets', { ...pet, name: 'Tom' }, inTrace(TRACE_A))
  await api('POST', '/pets', { ...pet, name: 'Kit' })

  const listed = (await control('GET', '/requests?logicalCalls=true')).body
  t.equal(listed.count, 3)
  t.same(
    listed.entries.map((e: { id: number; attempts: Array<{ id: number }> }) => [e.id, e.attempts.map((a) => a.id)]),
    [
      [1, [1, 2, 3]],
      [4, [4, 5]],
      [6, [6]],
    ],
  )
  t.equal((await control('GET', '/requests?logicalCalls=true&limit=1&after=1')).body.entries[0].id, 4, 'paged by call')
  t.equal((await control('GET', '/requests')).body.count, 6, 'without it, every attempt')

  const expectations = [
    { operationId: 'createPet', count: 1, body: { name: 'Rex' } },
    { operationId: 'createPet', count: 3 },
  ]
  t.equal((await control('POST', '/verify', { expectations, logicalCalls: true })).body.passed, true)
  t.equal((await control('POST', '/verify', { expectations })).body.passed, false)
  const awaited = await control('POST', '/requests/await', { expectations, logicalCalls: true, timeoutMs: 5000 })
  t.match(awaited.body, { passed: true, endedBy: 'met' })
})

t.test('a call after its test ended is late by the journal, whatever time its namespace’s clock tells', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const name = 'test-c'
  t.equal((await control('POST', `/clock?namespace=${name}`, { now: '2001-02-03T04:05:06Z' })).status, 200)
  await api('GET', '/pets', undefined, inNamespace(name))
  t.equal((await control('POST', `/namespaces/${name}/end`)).status, 200)
  await api('GET', '/pets', undefined, inNamespace(name))
  const { body } = await control('GET', `/requests/strays?test=${name}`)
  t.same(
    body.strays.map((s: { reason: string; entry: { id: number } }) => [s.reason, s.entry.id]),
    [['after-end', 2]],
    'the call before the end is none, the one after it is',
  )
})

t.test('a call answered just before its test ended is no stray, however close the two are', async (t) => {
  const { control, api } = await startControlSandbox(t)
  for (let i = 0; i < 40; i++) {
    const name = `close-${i}`
    await control('POST', `/reset?namespace=${name}`)
    await api('GET', '/pets', undefined, inNamespace(name))
    await control('POST', `/namespaces/${name}/end`)
  }
  t.same((await control('GET', '/requests/strays')).body, {
    count: 0,
    strays: [],
    message: 'no stray calls (every test)',
  })
})

t.test('calls in one millisecond, in several namespaces, are listed in the order they came', async (t) => {
  const { control, api } = await startControlSandbox(t, { NAMESPACE_FROM_TRACE: 'on' })
  await api('GET', '/pets', undefined, { ...inNamespace('test-a'), ...inTrace(TRACE_A) })
  // Every call below is journaled at one instant: only the order they were received in tells them apart.
  const realNow = Date.now
  const instant = realNow()
  Date.now = () => instant
  t.teardown(() => void (Date.now = realNow))
  await api('GET', '/pets', undefined, { ...inNamespace('test-b'), ...inTrace(TRACE_A, 'c0ffee00c0ffee00') })
  await api('GET', '/pets', undefined, inTrace(TRACE_A))
  await api('GET', '/pets')
  await api('GET', '/pets', undefined, { ...inNamespace('test-c'), ...inTrace(TRACE_B) })
  await api('GET', '/pets', undefined, { ...inNamespace('test-d'), ...inTrace(TRACE_B) })
  Date.now = realNow
  const { body } = await control('GET', '/requests/strays')
  t.same(
    body.strays.map((s: { reason: string; test: string | null; namespace: string }) => [s.reason, s.test, s.namespace]),
    [
      ['other-test', 'test-a', 'test-b'],
      ['other-test', 'test-a', TRACE_A],
      ['no-test', null, 'default'],
      ['other-test', 'test-c', 'test-d'],
    ],
    'the trace’s first call, of those in one millisecond, names its test',
  )
})
