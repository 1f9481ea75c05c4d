// The standalone control client against a real sandbox: its calls are openapi-fetch's over the
// types generated from spec/admin.openapi.yaml (test/conformance/spec.test.ts holds them to
// it); here, what the module adds: a handle's namespace, its refusals, its connections. What the
// answers mean is the sandbox's, tested in the other files of this folder.
import t from 'tap'
import {
  AnimalStoreControlClient,
  AnimalStoreControlError,
  DEFAULT_API_KEY,
  ok,
} from '../../modules/node/src/client.js'
import { startTestSandbox } from '../support/sandbox.js'

t.test('the calls against a real sandbox, through a namespace handle and the client', async (t) => {
  const { origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'client-admin', API_KEYS: DEFAULT_API_KEY })
  const sandbox = new AnimalStoreControlClient(`${origin}/v1`, { adminToken: 'client-admin' })
  const t1 = sandbox.namespace('t1')
  t.equal(t1.apiBaseUrl, `${origin}/v1`, 'a trailing /v1 of the origin is ignored')
  t.same(t1.apiHeaders, { authorization: `Bearer ${DEFAULT_API_KEY}`, 'x-sandbox-namespace': 't1' })

  t.same(await ok(t1.api.POST('/reset', { body: { seed: 3, count: 4 } })), { namespace: 't1', pets: 4 })
  const created = await fetch(`${t1.apiBaseUrl}/pets`, {
    method: 'POST',
    headers: { ...t1.apiHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Handled', categoryId: 2 }),
  })
  t.equal(created.status, 201, 'the handle’s headers reach its namespace')
  t.equal((await ok(t1.api.GET('/pets'))).length, 5)
  t.equal((await ok(sandbox.api.GET('/pets'))).length, 60, 'the client’s own calls: the default namespace')
  const since = new Date(Date.now() - 60_000).toISOString()
  const journal = await ok(t1.api.GET('/requests', { params: { query: { operationId: 'createPet', since } } }))
  t.match(journal, { count: 1, entries: [{ method: 'POST', status: 201, namespace: 't1' }] })

  t.match(await ok(t1.api.POST('/faults', { body: { operationId: 'listPets', status: 503, times: 1, after: 0 } })), {
    operationId: 'listPets',
    fired: 0,
  })
  t.match(await ok(t1.api.POST('/clock', { body: { now: '2030-12-05T00:00:00Z' } })), { namespace: 't1', real: false })
  t.match(
    await ok(t1.api.GET('/coverage', { params: { query: { format: 'markdown' } }, parseAs: 'text' })),
    /^# API coverage: namespace `t1`\n/,
    'the report as text',
  )
  t.match(await ok(t1.api.POST('/snapshots', { body: { name: 'one', namespace: 't1' } })), {
    name: 'one',
    namespace: 't1',
    pets: 5,
  })
  await sandbox.namespace('fork').api.POST('/reset', { body: { snapshot: 'one' } })
  const one = { params: { path: { name: 'one' } } }
  await t.rejects(sandbox.api.DELETE('/snapshots/{name}', one), {
    status: 409,
    code: 'conflict',
    operation: 'DELETE /snapshots/{name}',
  })
  t.same(await ok(sandbox.api.DELETE('/namespaces/{name}', { params: { path: { name: 'fork' } } })), {
    namespace: 'fork',
    deleted: true,
  })
  t.same(await ok(sandbox.api.DELETE('/snapshots/{name}', one)), { snapshot: 'one', deleted: true })
})

t.test('countRequests and allRequests walk the journal a page at a time', async (t) => {
  const { origin } = await startTestSandbox(t)
  const ns = new AnimalStoreControlClient(origin).namespace('pages')
  await ns.api.POST('/reset')
  for (let i = 0; i < 5; i++) await fetch(`${ns.apiBaseUrl}/pets/${i + 1}`, { headers: ns.apiHeaders })
  t.equal(await ns.countRequests({ operationId: 'getPet' }), 5)
  const walked = []
  for await (const entry of ns.allRequests({ operationId: 'getPet' }, 2)) walked.push(entry.path)
  t.same(walked, ['/v1/pets/1', '/v1/pets/2', '/v1/pets/3', '/v1/pets/4', '/v1/pets/5'], 'three pages, in order')
  await t.rejects(ns.allRequests({}, 0).next(), TypeError)
})

t.test('a refusal rejects with the sandbox’s status, code and message', async (t) => {
  const { origin } = await startTestSandbox(t)
  const sandbox = new AnimalStoreControlClient(origin)
  const refused = sandbox.api.POST('/faults', { body: { operationId: 'nope', status: 500, after: 0 } })
  await t.rejects(refused, AnimalStoreControlError)
  await t.rejects(refused, { operation: 'POST /faults', status: 400, code: 'invalid_body', message: /operationId/ })
  await t.rejects(sandbox.api.POST('/clock', { body: { now: 'bad' } }), { status: 400, message: /now/ })
})

t.test('the calls go over kept-alive connections by default', async (t) => {
  const { origin } = await startTestSandbox(t)
  const { createServer, request } = await import('node:http')
  // A pass-through proxy in front of the sandbox counts the connections the client opens.
  let connections = 0
  const proxy = createServer((req, res) => {
    const forwarded = request(`${origin}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(forwarded)
  })
  proxy.on('connection', () => connections++)
  // Longer than the test: a connection the proxy closed between two calls would be counted twice.
  proxy.keepAliveTimeout = 10 * 60_000
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    proxy.closeAllConnections()
    return new Promise<void>((resolve) => proxy.close(() => resolve()))
  })
  const { port } = proxy.address() as { port: number }
  const client = new AnimalStoreControlClient(`http://127.0.0.1:${port}`)
  for (let i = 0; i < 5; i++) await client.namespace('kept').api.POST('/reset')
  t.equal(connections, 1, 'five calls, one after the other, share one connection')
})
