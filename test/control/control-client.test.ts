// The standalone control client: held to spec/admin.openapi.yaml (an operation or parameter the
// spec has and the client lacks fails here), and every call made against a real sandbox.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import {
  AnimalStoreControlClient,
  AnimalStoreControlError,
  DEFAULT_API_KEY,
  OPERATIONS,
} from '../../modules/node/src/client.js'
import { ROOT, startTestSandbox } from '../support/sandbox.js'

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch']

t.test('the client has every operation of spec/admin.openapi.yaml, as the spec says, and no other', async (t) => {
  const spec = parse(await readFile(join(ROOT, 'spec/admin.openapi.yaml'), 'utf8')) as Record<string, any>
  const fromSpec: Record<string, unknown> = {}
  for (const [path, item] of Object.entries<Record<string, any>>(spec['paths'])) {
    for (const method of HTTP_METHODS) {
      const operation = item[method]
      if (!operation) continue
      const parameters = (operation.parameters ?? []).map((p: Record<string, any>) =>
        p['$ref'] ? spec['components'].parameters[String(p['$ref']).split('/').pop() as string] : p,
      )
      const query = parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name)
      fromSpec[operation.operationId] = {
        method: method.toUpperCase(),
        path,
        namespaced: query.includes('namespace'),
        query: query.filter((name: string) => name !== 'namespace'),
        body: operation.requestBody !== undefined,
      }
    }
  }
  t.same(
    OPERATIONS,
    fromSpec,
    'each operation: method, path, the namespace parameter, the other query parameters, a body',
  )
  const client = new AnimalStoreControlClient('http://127.0.0.1:1')
  const handle = client.namespace('x')
  for (const [operationId, operation] of Object.entries(OPERATIONS)) {
    t.type((client as unknown as Record<string, unknown>)[operationId], 'function', `the client has ${operationId}()`)
    if (operation.namespaced) {
      t.type(
        (handle as unknown as Record<string, unknown>)[operationId],
        'function',
        `a namespace handle has ${operationId}()`,
      )
    }
  }
})

t.test('every call against a real sandbox, through a namespace handle', async (t) => {
  const { origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'client-admin', API_KEYS: DEFAULT_API_KEY })
  const sandbox = new AnimalStoreControlClient(`${origin}/v1`, { adminToken: 'client-admin' })
  const t1 = sandbox.namespace('t1')
  t.equal(t1.apiBaseUrl, `${origin}/v1`, 'a trailing /v1 of the origin is ignored')
  t.same(t1.apiHeaders, { authorization: `Bearer ${DEFAULT_API_KEY}`, 'x-sandbox-namespace': 't1' })

  await t.rejects(
    t1.listRequests(),
    { name: 'AnimalStoreControlError', status: 404, code: 'not_found' },
    'a read does not create it',
  )
  t.same(await t1.reset({ seed: 3, count: 4 }), { namespace: 't1', pets: 4 })
  t.equal((await t1.exportPets()).length, 4)
  const created = await fetch(`${t1.apiBaseUrl}/pets`, {
    method: 'POST',
    headers: { ...t1.apiHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Handled', categoryId: 2 }),
  })
  t.equal(created.status, 201, 'the handle’s headers reach its namespace')
  t.equal((await sandbox.exportPets()).length, 60, 'the default namespace is untouched')

  const journal = await t1.listRequests({ operationId: 'createPet', since: new Date(Date.now() - 60_000) })
  t.match(journal, { count: 1, entries: [{ method: 'POST', status: 201, namespace: 't1' }] })
  t.match(await t1.listUnmatchedRequests(), { count: 0 })
  t.match(await t1.clearRequests(), { namespace: 't1', cleared: 1 })

  t.match(await t1.addFault({ operationId: 'listPets', status: 503, times: 1 }), { operationId: 'listPets', fired: 0 })
  t.match(await t1.listFaults(), { count: 1 })
  t.equal((await fetch(`${t1.apiBaseUrl}/pets`, { headers: t1.apiHeaders })).status, 503, 'the fault fires in t1')
  t.match(await t1.clearFaults(), { namespace: 't1' })

  t.match(await t1.setClock('2030-12-05T00:00:00Z'), { namespace: 't1', real: false })
  t.match(await t1.getClock(), { real: false })
  t.equal((await fetch(`${t1.apiBaseUrl}/pets/1`, { headers: t1.apiHeaders })).status, 410)
  t.match(await t1.resetClock(), { real: true })

  t.same(await t1.replacePets([{ id: 5, name: 'Only', categoryId: 1, status: 'sold' }]), { namespace: 't1', pets: 1 })
  t.match(await t1.createSnapshot('one'), { name: 'one', namespace: 't1', pets: 1, clock: null, forks: [] })
  const fork = sandbox.namespace('fork')
  t.same(await fork.reset({ snapshot: 'one' }), { namespace: 'fork', pets: 1 })
  t.match(await sandbox.listSnapshots(), { count: 1, snapshots: [{ name: 'one', forks: ['fork'] }] })
  const inUse = { name: 'AnimalStoreControlError', status: 409, code: 'conflict', operationId: 'deleteSnapshot' }
  await t.rejects(sandbox.deleteSnapshot('one'), inUse)
  await sandbox.deleteNamespace('fork')
  t.same(await sandbox.deleteSnapshot('one'), { snapshot: 'one', deleted: true })
  t.equal((await sandbox.createSnapshot('of-default')).namespace, 'default', 'the client’s own calls: the default')
  t.ok((await sandbox.listNamespaces()).namespaces.some((n) => n.name === 't1'))
  t.same(await sandbox.deleteNamespace('t1'), { namespace: 't1', deleted: true })
  const { namespaces } = await sandbox.listNamespaces()
  t.notOk(
    namespaces.some((n) => n.name === 't1'),
    'deleted',
  )
})

t.test('the journal a page at a time: listRequests with a cursor, countRequests, allRequests', async (t) => {
  const { origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'client-admin', API_KEYS: DEFAULT_API_KEY })
  const t2 = new AnimalStoreControlClient(origin, { adminToken: 'client-admin' }).namespace('t2')
  await t2.reset()
  // 130 reads of pet 1, one of pet 2 after every tenth: 143 getPets, 13 of them of pet 2.
  for (let i = 1; i <= 130; i++) {
    await fetch(`${t2.apiBaseUrl}/pets/1`, { headers: t2.apiHeaders }).then((r) => r.arrayBuffer())
    if (i % 10 === 0) await fetch(`${t2.apiBaseUrl}/pets/2`, { headers: t2.apiHeaders }).then((r) => r.arrayBuffer())
  }
  const first = await t2.listRequests({ operationId: 'getPet' })
  t.equal(first.count, 143, 'the count of every match')
  t.equal(first.entries.length, 100, 'the default page')
  t.equal(first.next, first.entries[99]?.id)
  const second = await t2.listRequests({ operationId: 'getPet' }, { after: first.next })
  t.match(second, { entries: { length: 43 }, next: null }, 'the rest (each once, in order: journal.test.ts)')
  const small = await t2.listRequests({ path: '/v1/pets/2' }, { limit: 5 })
  t.match(small, { count: 13, next: small.entries[4]?.id })
  t.equal(small.entries.length, 5)

  t.equal(await t2.countRequests({ operationId: 'getPet' }), 143)
  t.equal(await t2.countRequests({ path: '/v1/pets/2' }), 13)
  t.equal(await t2.countRequests({ operationId: 'createPet' }), 0)

  const walked = []
  for await (const entry of t2.allRequests({ path: '/v1/pets/2' }, { limit: 4 })) walked.push(entry)
  const expected = Array.from({ length: 13 }, (_, i) => ({ id: (i + 1) * 11, path: '/v1/pets/2' }))
  t.match(walked, expected, 'allRequests walks every page')
  t.equal(walked.length, 13)
  let all = 0
  for await (const entry of t2.allRequests()) all += entry.operationId === 'getPet' ? 1 : 0
  t.equal(all, 143, 'past the default page')

  for (let i = 0; i < 3; i++) await fetch(`${t2.apiBaseUrl}/nowhere`, { headers: t2.apiHeaders })
  const unmatched = await t2.listUnmatchedRequests({ limit: 2 })
  t.match(unmatched, { count: 3, next: unmatched.entries[1]?.id })
  t.equal((await t2.listUnmatchedRequests({ after: unmatched.next })).entries.length, 1)
  await t.rejects(t2.listRequests({}, { limit: 1001 }), { status: 400, code: 'invalid_parameter', message: /limit/ })
})

t.test("a trace's calls alone: the traceId filter of listRequests, verify and getCoverage", async (t) => {
  const { origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'client-admin', API_KEYS: DEFAULT_API_KEY })
  const sandbox = new AnimalStoreControlClient(origin, { adminToken: 'client-admin' }).namespace('t3')
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const traced = { ...sandbox.apiHeaders, traceparent: `00-${traceId}-00f067aa0ba902b7-01` }
  await fetch(`${sandbox.apiBaseUrl}/pets/1`, { headers: traced }).then((r) => r.arrayBuffer())
  await fetch(`${sandbox.apiBaseUrl}/pets/2`, { headers: sandbox.apiHeaders }).then((r) => r.arrayBuffer())
  t.equal(await sandbox.countRequests({ traceId }), 1)
  t.same(
    (await sandbox.listRequests({ traceId })).entries.map((e) => [e.path, e.traceId]),
    [['/v1/pets/1', traceId]],
  )
  const once = [{ operationId: 'getPet', count: 1 }] as const
  t.match(await sandbox.verify(once), { passed: false })
  t.match(await sandbox.verify(once, { traceId, strict: true }), { passed: true })
  t.equal((await sandbox.getCoverage({ traceId })).summary.calls, 1)
  t.match(await sandbox.getCoverageMarkdown({ traceId }), /over 1 calls/)
})

t.test('errors reject with the sandbox’s own message and status', async (t) => {
  const { origin } = await startTestSandbox(t)
  const sandbox = new AnimalStoreControlClient(origin)
  // @ts-expect-error the types take only the API's operations; the sandbox refuses any other too
  const refused = sandbox.addFault({ operationId: 'nope', status: 500 })
  await t.rejects(refused, AnimalStoreControlError)
  await t.rejects(refused, {
    operationId: 'addFault',
    status: 400,
    code: 'invalid_body',
    message: /operationId must be one of/,
  })
  // The sandbox judges dates too: the client sends a string as given.
  await t.rejects(sandbox.listRequests({ since: 'yesterday' }), { status: 400, message: /since/ })
  await t.rejects(sandbox.setClock('bad'), { status: 400, message: /now/ })
  await t.rejects(new AnimalStoreControlClient(origin, { adminToken: 'wrong' }).getClock(), {
    status: 401,
    code: 'unauthorized',
  })
})

t.test('the calls go over kept-alive connections by default, and through a fetch when one is given', async (t) => {
  const { origin } = await startTestSandbox(t)
  const { createServer, request } = await import('node:http')
  // A pass-through proxy in front of the sandbox counts the connections the client opens.
  const connections: number[] = []
  const proxy = createServer((req, res) => {
    const forwarded = request(`${origin}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(forwarded)
  })
  proxy.on('connection', () => connections.push(Date.now()))
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => proxy.close(() => resolve())))
  // Longer than the test: a connection the proxy closed between two calls would be counted twice.
  proxy.keepAliveTimeout = 10 * 60_000
  const { port } = proxy.address() as { port: number }
  const client = new AnimalStoreControlClient(`http://127.0.0.1:${port}`)
  for (let i = 0; i < 5; i++) await client.namespace('kept').reset()
  t.equal(connections.length, 1, 'five calls, one after the other, share one connection')
  await t.rejects(
    client.namespace('never-used').countRequests(),
    { name: 'AnimalStoreControlError', status: 404, code: 'not_found' },
    "the sandbox's errors come as before",
  )
  proxy.closeAllConnections()

  const seen: string[] = []
  const recording = new AnimalStoreControlClient(origin, {
    fetch: (input, init) => {
      seen.push(`${init?.method} ${String(input).replace(origin, '')}`)
      return fetch(input, init)
    },
  })
  await recording.namespace('rec').reset()
  t.equal(await recording.namespace('rec').countRequests(), 0)
  t.same(
    seen,
    ['POST /__admin/reset?namespace=rec', 'GET /__admin/requests?limit=0&namespace=rec'],
    'the given fetch sent the calls',
  )
})
