// The contract's operations against a real sandbox: happy paths, 404s, 405s, headers.
import t from 'tap'
import fixtures from '../../fixtures/pets.json' with { type: 'json' }
import { AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'

type Pet = { id: number; name: string; categoryId: number; status?: string }

t.test('listPets', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const list = async (query: string): Promise<Pet[]> => {
    const res = await fetch(`${baseUrl}/pets${query}`, { headers: AUTH })
    t.equal(res.status, 200, `GET /pets${query} → 200`)
    t.match(res.headers.get('content-type'), /^application\/json/)
    return (await res.json()) as Pet[]
  }

  t.same(await list(''), fixtures.slice(0, 20), 'no limit → the first 20 pets in ascending id order')
  t.same(await list('?limit=1'), fixtures.slice(0, 1), 'limit=1 → one pet')
  t.same(await list('?limit=100'), fixtures, 'limit=100 → all 60 seeded pets')
  const sold = fixtures.filter((p) => p.status === 'sold')
  t.same(await list('?status=sold&limit=100'), sold, 'status=sold → exactly the sold pets, in id order')
  t.same(await list('?status=sold&limit=3'), sold.slice(0, 3), 'status=sold&limit=3 → the first 3 of them')
  t.same(await list('?unknown=1&limit=2'), fixtures.slice(0, 2), 'unknown query parameters are ignored')
})

t.test('createPet', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const create = (body: unknown) =>
    fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  const res = await create({ name: 'Rex', categoryId: 3, status: 'pending' })
  t.equal(res.status, 201)
  const rex = (await res.json()) as Pet
  t.same(rex, { id: 61, name: 'Rex', categoryId: 3, status: 'pending' }, 'the stored pet with the next id')

  const noStatus = (await (await create({ name: 'Tom', categoryId: 1 })).json()) as Pet
  t.equal(noStatus.status, 'available', 'an omitted status becomes available')

  const extra = await create(
    '{"name":"Kit","categoryId":2,"id":5,"color":"black","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  )
  t.equal(extra.status, 201)
  const kit = (await extra.json()) as Pet
  t.same(
    kit,
    { id: 63, name: 'Kit', categoryId: 2, status: 'available' },
    'a client-sent id and unknown properties are ignored',
  )
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'nothing reached Object.prototype')

  const listed = (await (await fetch(`${baseUrl}/pets?limit=100&status=pending`, { headers: AUTH })).json()) as Pet[]
  t.same(listed.at(-1), rex, 'and is listed last, by id')
})

t.test('getPet', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const res = await fetch(`${baseUrl}/pets/7`, { headers: AUTH })
  t.equal(res.status, 200)
  t.same(await res.json(), fixtures[6])

  const missing = await fetch(`${baseUrl}/pets/9999`, { headers: AUTH })
  t.equal(missing.status, 404)
  t.same(await missing.json(), { code: 'not_found', message: 'No pet with id 9999', status: 404 })

  // Deprecated: RFC 9745 Deprecation, RFC 8594 Sunset and a Link (on its 401 and 404 too: the
  // conformance suite checks every answer of getPet).
  t.equal(res.headers.get('deprecation'), '@1767225600')
  t.equal(res.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT')
  t.equal(res.headers.get('link'), '</v1/pets>; rel="successor-version"')
  const list = await fetch(`${baseUrl}/pets`, { headers: AUTH })
  t.equal(list.headers.get('deprecation'), null, 'listPets is not deprecated')
})

// Which paths match an operation: routes.test.ts; their case over HTTP: test/hardening/fuzz-regressions.test.ts;
// listOrders' 501 and 401: the conformance suite.
t.test('routes outside the operations', async (t) => {
  const { baseUrl, origin } = await startTestSandbox(t)
  const cases: Array<{ method: string; url: string; status: number; code: string; allow?: string }> = [
    { method: 'GET', url: '/v1/nothing', status: 404, code: 'not_found' },
    { method: 'GET', url: '/pets', status: 404, code: 'not_found' },
    { method: 'DELETE', url: '/v1/pets', status: 405, code: 'method_not_allowed', allow: 'GET, POST, HEAD' },
    { method: 'PUT', url: '/v1/pets/1', status: 405, code: 'method_not_allowed', allow: 'GET, HEAD' },
  ]
  for (const c of cases) {
    const res = await fetch(origin + c.url, { method: c.method, headers: AUTH })
    t.equal(res.status, c.status, `${c.method} ${c.url} → ${c.status}`)
    t.match(res.headers.get('content-type'), /^application\/json/)
    t.match(await res.json(), { code: c.code, status: c.status, message: String })
    if (c.allow) t.equal(res.headers.get('allow'), c.allow, 'Allow lists the methods of the path')
  }
  // Path parameters are percent-decoded (which paths match, one trailing slash among them: routes.test.ts).
  const decoded = await fetch(`${origin}/v1/pets/%37`, { headers: AUTH })
  t.match(await decoded.json(), { id: 7 }, '%37 is pet 7')
  const health = await fetch(`${origin}/healthz`)
  t.equal(health.status, 200, 'GET /healthz needs no key')
  t.same(await health.json(), { status: 'ok', unhandledRejections: 0 })
  t.equal(baseUrl, `${origin}/v1`)
})
