// The standalone control client: held to spec/admin.openapi.yaml (an operation or parameter the
// spec has and the client lacks fails here), and its calls against a real sandbox. What the
// answers mean is the sandbox's, tested in the other files of this folder.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import type { operations } from '../../modules/node/src/admin-types.js'
import {
  AnimalStoreControlClient,
  AnimalStoreControlError,
  DEFAULT_API_KEY,
  type NamespaceControl,
} from '../../modules/node/src/client.js'
import { ROOT, startTestSandbox } from '../support/sandbox.js'

/** Each operation called with every option it has, through a handle on `ns` or the client itself. */
const EVERY_OPTION: Record<
  keyof operations,
  (handle: NamespaceControl, client: AnimalStoreControlClient) => Promise<unknown>
> = {
  reset: (ns) => ns.reset({ seed: 1, count: 1, snapshot: 's' }),
  exportPets: (ns) => ns.exportPets(),
  replacePets: (ns) => ns.replacePets([]),
  listRequests: (ns) =>
    ns.listRequests(
      { method: 'GET', path: '/p', operationId: 'getPet', status: 200, since: new Date(), traceId: 'x' },
      { limit: 1, after: 1 },
    ),
  clearRequests: (ns) => ns.clearRequests(),
  listUnmatchedRequests: (ns) => ns.listUnmatchedRequests({ limit: 1, after: 1 }),
  addFault: (ns) =>
    ns.addFault({ operationId: 'getPet', status: 500, delayMs: 1, fault: 'empty-response', times: 1, after: 1 }),
  listFaults: (ns) => ns.listFaults(),
  clearFaults: (ns) => ns.clearFaults(),
  getCoverage: (ns) => ns.getCoverage({ all: true, traceId: 'x' }),
  getDrift: (ns) => ns.getDrift(),
  verify: (ns) => ns.verify([], { strict: true, traceId: 'x' }),
  exportPact: (ns) => ns.exportPact({ consumer: 'c', provider: 'p' }),
  getClock: (ns) => ns.getClock(),
  setClock: (ns) => ns.setClock(new Date()),
  resetClock: (ns) => ns.resetClock(),
  listNamespaces: (_, client) => client.listNamespaces(),
  deleteNamespace: (_, client) => client.deleteNamespace('n'),
  createSnapshot: (ns) => ns.createSnapshot('s'),
  listSnapshots: (_, client) => client.listSnapshots(),
  deleteSnapshot: (_, client) => client.deleteSnapshot('n'),
  getTlsCa: (_, client) => client.getTlsCa(),
}

t.test(
  'each operation of spec/admin.openapi.yaml sends its method, path, every parameter and body property',
  async (t) => {
    const spec = parse(await readFile(join(ROOT, 'spec/admin.openapi.yaml'), 'utf8')) as Record<string, any>
    // A reference inside this file; another file's schema (replacePets' array of pets) has no properties here.
    const resolve = (node: Record<string, any>): Record<string, any> => {
      const ref = node['$ref'] as string | undefined
      if (ref === undefined) return node
      return ref.startsWith('#/')
        ? ref
            .slice(2)
            .split('/')
            .reduce((at, key) => at[key], spec)
        : {}
    }
    const properties = (schema: Record<string, any>): string[] => [
      ...Object.keys(schema['properties'] ?? {}),
      ...(schema['allOf'] ?? []).flatMap((part: Record<string, any>) => properties(resolve(part))),
    ]
    const fromSpec: Record<string, unknown> = {}
    for (const [path, item] of Object.entries<Record<string, any>>(spec['paths']))
      for (const method of ['get', 'put', 'post', 'delete']) {
        const operation = item[method]
        if (!operation) continue
        const body = operation.requestBody && resolve(operation.requestBody.content['application/json'].schema)
        fromSpec[operation.operationId] = {
          route: `${method.toUpperCase()} /__admin${path.replace('{name}', 'n')}`,
          query: (operation.parameters ?? [])
            .map(resolve)
            .filter((p: Record<string, any>) => p['in'] === 'query')
            .map((p: Record<string, any>) => p['name'])
            .sort(),
          body: body ? properties(body).sort() : [],
        }
      }
    // A recorder in place of the sandbox: what the client sends.
    let sent: unknown
    const client = new AnimalStoreControlClient('http://127.0.0.1:1', {
      fetch: async (input, init) => {
        const url = new URL(String(input))
        const body: unknown = init?.body === undefined ? {} : JSON.parse(String(init.body))
        sent = {
          route: `${init?.method} ${url.pathname}`,
          query: [...url.searchParams.keys()].sort(),
          body: Array.isArray(body) ? [] : Object.keys(body as object).sort(),
        }
        return new Response('{}')
      },
    })
    const sentBy: Record<string, unknown> = {}
    for (const [operationId, call] of Object.entries(EVERY_OPTION)) {
      await call(client.namespace('ns'), client)
      sentBy[operationId] = sent
    }
    t.same(sentBy, fromSpec)
  },
)

t.test('the calls against a real sandbox, through a namespace handle and the client', async (t) => {
  const { origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'client-admin', API_KEYS: DEFAULT_API_KEY })
  const sandbox = new AnimalStoreControlClient(`${origin}/v1`, { adminToken: 'client-admin' })
  const t1 = sandbox.namespace('t1')
  t.equal(t1.apiBaseUrl, `${origin}/v1`, 'a trailing /v1 of the origin is ignored')
  t.same(t1.apiHeaders, { authorization: `Bearer ${DEFAULT_API_KEY}`, 'x-sandbox-namespace': 't1' })

  t.same(await t1.reset({ seed: 3, count: 4 }), { namespace: 't1', pets: 4 })
  const created = await fetch(`${t1.apiBaseUrl}/pets`, {
    method: 'POST',
    headers: { ...t1.apiHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Handled', categoryId: 2 }),
  })
  t.equal(created.status, 201, 'the handle’s headers reach its namespace')
  t.equal((await t1.exportPets()).length, 5)
  t.equal((await sandbox.exportPets()).length, 60, 'the client’s own calls: the default namespace')
  const journal = await t1.listRequests({ operationId: 'createPet', since: new Date(Date.now() - 60_000) })
  t.match(journal, { count: 1, entries: [{ method: 'POST', status: 201, namespace: 't1' }] })

  t.match(await t1.addFault({ operationId: 'listPets', status: 503, times: 1 }), { operationId: 'listPets', fired: 0 })
  t.match(await t1.setClock('2030-12-05T00:00:00Z'), { namespace: 't1', real: false })
  t.match(await t1.getCoverageMarkdown(), /^# API coverage: namespace `t1`\n/, 'the report as text')
  t.match(await t1.createSnapshot('one'), { name: 'one', namespace: 't1', pets: 5 })
  await sandbox.namespace('fork').reset({ snapshot: 'one' })
  await t.rejects(sandbox.deleteSnapshot('one'), { status: 409, code: 'conflict', operationId: 'deleteSnapshot' })
  t.same(await sandbox.deleteNamespace('fork'), { namespace: 'fork', deleted: true })
  t.same(await sandbox.deleteSnapshot('one'), { snapshot: 'one', deleted: true })
})

t.test('countRequests and allRequests walk the journal a page at a time', async (t) => {
  const { origin } = await startTestSandbox(t)
  const ns = new AnimalStoreControlClient(origin).namespace('pages')
  await ns.reset()
  for (let i = 0; i < 5; i++) await fetch(`${ns.apiBaseUrl}/pets/${i + 1}`, { headers: ns.apiHeaders })
  t.equal(await ns.countRequests({ operationId: 'getPet' }), 5)
  const walked = []
  for await (const entry of ns.allRequests({ operationId: 'getPet' }, { limit: 2 })) walked.push(entry.path)
  t.same(walked, ['/v1/pets/1', '/v1/pets/2', '/v1/pets/3', '/v1/pets/4', '/v1/pets/5'], 'three pages, in order')
  await t.rejects(ns.allRequests({}, { limit: 0 }).next(), TypeError)
})

t.test('a refusal rejects with the sandbox’s status, code and message', async (t) => {
  const { origin } = await startTestSandbox(t)
  const sandbox = new AnimalStoreControlClient(origin)
  // @ts-expect-error the types take only the API's operations; the sandbox refuses any other too
  const refused = sandbox.addFault({ operationId: 'nope', status: 500 })
  await t.rejects(refused, AnimalStoreControlError)
  await t.rejects(refused, { operationId: 'addFault', status: 400, code: 'invalid_body', message: /operationId/ })
  await t.rejects(sandbox.setClock('bad'), { status: 400, message: /now/ }, 'a string goes as given')
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
  for (let i = 0; i < 5; i++) await client.namespace('kept').reset()
  t.equal(connections, 1, 'five calls, one after the other, share one connection')
})
