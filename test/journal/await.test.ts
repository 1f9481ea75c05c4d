// Waiting for requests on the server (POST /__admin/requests/await), against a real server on a
// real port: what ends a wait, its bounds, and a client that goes away.
import t from 'tap'
import { MAX_WAITS, MAX_WAITS_PER_NAMESPACE, waitsOn } from '../../src/journal/journal-waits.js'
import { ADMIN_AUTH, startControlSandbox } from '../support/control.js'

const TRACE_A = '0af7651916cd43dd8448eb211c80319c'
const TRACE_B = '4bf92f3577b34da6a3ce929d0e0e4736'
const traceparent = (traceId: string): Record<string, string> => ({ traceparent: `00-${traceId}-b7ad6b7169203331-01` })

t.test('a wait answers as soon as the call it expects is journaled, not at its deadline', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const waiting = control('POST', '/requests/await', {
    timeoutMs: 30_000,
    expectations: [{ operationId: 'createPet', count: 1, body: { categoryId: 3 } }],
  })
  // Calls that do not match leave it waiting.
  await api('POST', '/pets', { name: 'Tom', categoryId: 7 })
  await api('POST', '/pets', { name: 'Rex', categoryId: 3 })
  const { status, body } = await waiting
  t.equal(status, 200)
  t.match(body, { namespace: 'default', passed: true, endedBy: 'met' })
  t.equal(body.expectations[0].matched, 1)
  t.ok(body.waitedMs < 30_000, `answered after ${body.waitedMs} ms`)
})

t.test('at its deadline a wait answers as verify does, with the near misses', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('POST', '/pets', { name: 'Rex', categoryId: '3' })
  const expectations = [{ operationId: 'createPet', count: 1, body: { name: 'Rex', categoryId: 3 } }]
  const { status, body } = await control('POST', '/requests/await', { timeoutMs: 300, expectations })
  t.equal(status, 200)
  t.match(body, { passed: false, endedBy: 'deadline' })
  t.ok(body.waitedMs >= 300, `waited ${body.waitedMs} ms`)
  const verified = (await control('POST', '/verify', { expectations })).body
  const { endedBy, waitedMs, ...asVerify } = body
  t.same(asVerify, verified, 'the answer is verify’s')
  t.same(
    body.expectations[0].closest[0].differences.map((d: { message: string }) => d.message),
    ['createPet body /categoryId: expected 3, got "3"'],
  )
  t.match(body.message, /closest/)
})

t.test('a wait that can no longer be met ends at once', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('GET', '/pets')
  await api('GET', '/pets')
  const { body } = await control('POST', '/requests/await', {
    timeoutMs: 30_000,
    expectations: [{ operationId: 'listPets', count: 1 }],
  })
  t.match(body, { passed: false, endedBy: 'unmeetable' })
  t.ok(body.waitedMs < 1000)
})

t.test('a wait for quiet ends once the namespace had no call for quietMs, then judges the expectations', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const started = Date.now()
  // The third call meets the expectation; with quietMs the wait goes on until the calls stop.
  const waiting = control('POST', '/requests/await?namespace=quiet', {
    quietMs: 400,
    timeoutMs: 30_000,
    expectations: [{ operationId: 'listPets', count: 3 }],
  })
  // Each call starts the quiet period again: the wait cannot end before the last one plus 400 ms.
  let lastCall = 0
  for (let i = 0; i < 3; i++) {
    lastCall = Date.now() // the server's clock too: its call starts no earlier
    await api('GET', '/pets', undefined, { 'x-sandbox-namespace': 'quiet' })
  }
  const { status, body } = await waiting
  t.equal(status, 200)
  t.match(body, { passed: true, endedBy: 'quiet' })
  t.ok(Date.now() - lastCall >= 400, `ended ${Date.now() - lastCall} ms after the last call`)
  t.ok(Date.now() - started < 5000)
})

t.test('a wait on a trace ends on that trace’s calls only', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const waiting = control('POST', `/requests/await?traceId=${TRACE_A}`, {
    timeoutMs: 30_000,
    expectations: [{ operationId: 'listPets' }],
  })
  await api('GET', '/pets', undefined, traceparent(TRACE_B))
  await api('GET', '/pets', undefined, traceparent(TRACE_A))
  const { body } = await waiting
  t.match(body, { passed: true, endedBy: 'met', checked: 1 })
})

t.test('waits are bounded per namespace and in all; a client that goes away frees its wait', async (t) => {
  const { control, namespaces, origin } = await startControlSandbox(t)
  const waits = waitsOn(namespaces.journals)
  const held: AbortController[] = []
  const hold = (namespace: string): void => {
    const controller = new AbortController()
    held.push(controller)
    fetch(`${origin}/__admin/requests/await?namespace=${namespace}`, {
      method: 'POST',
      headers: { ...ADMIN_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ timeoutMs: 30_000 }),
      signal: controller.signal,
    }).catch(() => undefined)
  }
  for (const name of ['w0', 'w1', 'w2', 'w3']) await control('POST', '/reset?namespace=' + name)
  for (let i = 0; i < MAX_WAITS_PER_NAMESPACE; i++) hold('w0')
  await until(() => waits.count === MAX_WAITS_PER_NAMESPACE)
  const refused = await control('POST', '/requests/await?namespace=w0', { timeoutMs: 0 })
  t.equal(refused.status, 429)
  t.equal(refused.headers.get('retry-after'), '1')
  t.match(refused.body, { code: 'too_many_waits', status: 429, message: /Namespace "w0" has 16 waits open/ })
  t.equal((await control('POST', '/requests/await?namespace=w1', { timeoutMs: 0 })).status, 200, 'others have room')

  for (const name of ['w1', 'w2', 'w3']) for (let i = 0; i < MAX_WAITS_PER_NAMESPACE; i++) hold(name)
  await until(() => waits.count === MAX_WAITS)
  const full = await control('POST', '/requests/await', { timeoutMs: 0 })
  t.equal(full.status, 429)
  t.match(full.body, { code: 'too_many_waits', message: /64 waits are open/ })

  for (const controller of held) controller.abort()
  await until(() => waits.count === 0)
  t.equal(namespaces.journals.onRecord, undefined, 'with nobody waiting, the journals tell no one')
  t.equal((await control('POST', '/requests/await?namespace=w0', { timeoutMs: 0 })).status, 200)
})

t.test('a wait on a namespace deleted meanwhile is a 404; on none, a 404 at once', async (t) => {
  const { control, namespaces } = await startControlSandbox(t)
  t.equal((await control('POST', '/requests/await?namespace=nowhere', {})).status, 404)
  await control('POST', '/reset?namespace=brief')
  const waiting = control('POST', '/requests/await?namespace=brief', { timeoutMs: 30_000 })
  await until(() => waitsOn(namespaces.journals).count === 1)
  await control('DELETE', '/namespaces/brief')
  const { status, body } = await waiting
  t.equal(status, 404)
  t.match(body, { code: 'not_found', message: 'Namespace "brief" was deleted while the wait lasted' })
})

t.test('a deadline past 30 s, or a wrong expectation, is a 400', async (t) => {
  const { control } = await startControlSandbox(t)
  t.equal((await control('POST', '/requests/await', { timeoutMs: 30_001 })).status, 400)
  const wrong = await control('POST', '/requests/await', { expectations: [{ operationId: 'nope' }] })
  t.equal(wrong.status, 400)
  t.match(wrong.body.message, /body.expectations.0.operationId must be one of/)
})

/** Waits for a state of the server, checking every few milliseconds, within 10 s. */
async function until(state: () => boolean): Promise<void> {
  const end = Date.now() + 10_000
  while (!state()) {
    if (Date.now() > end) throw new Error('the state never came')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
