// Compare mode against a stand-in real API (stand-in.ts): no drift when both follow the interface,
// and each rule the stand-in changes is named, with its operation and pointer, and nothing else.
// It sends upstream only what the sandbox served, and only with the upstream's key: a request it
// refused (its key, its parameters, its body, its route) or one carrying a sandbox secret never
// leaves, and no header a client sent (its bearer, cookies, an API key header) goes with the ones
// that do.
import t from 'tap'
import { API_KEY, AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'
import { clientSequence, standInFor, type Switches } from './stand-in.js'

const UPSTREAM_KEY = 'upstream-secret-key-7f3a'
const ADMIN_TOKEN = 'compare-admin-token-c2d1'
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` }

interface DriftReport {
  compared: number
  skipped: number
  count: number
  operations: Record<string, { compared: number; differences: number }>
  differences: { operationId: string; pointer: string; kind: string; sandbox: unknown; upstream: unknown }[]
}

async function driftOf(origin: string, namespace: string): Promise<DriftReport> {
  const response = await fetch(`${origin}/__admin/drift?namespace=${namespace}`, { headers: ADMIN })
  t.equal(response.status, 200)
  return (await response.json()) as DriftReport
}

// One stand-in and one sandbox that sends POSTs up too, for the tests that need no setting of their own.
const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
const { origin, baseUrl } = await startTestSandbox(t, { ADMIN_TOKEN, ...upstream, UPSTREAM_UNSAFE: 'on' })

t.test('compare: each switch of the stand-in is named with its operation and pointer, nothing else', async (t) => {
  const cases: [string, Switches, string, string[]][] = [
    ['no switch', {}, '', []],
    ['list order', { newestFirst: true }, 'listPets', ['/body/0/name']],
    ['a field dropped', { dropStatus: true }, 'getPet', ['/body/status']],
    ['a status', { createdIs200: true }, 'createPet', ['/status']],
    ['a header format', { isoSunset: true }, 'getPet', ['/headers/sunset']],
    ['a default', { defaultLimit10: true }, 'listPets', ['/body/10']],
  ]
  for (const [name, switches, operationId, pointers] of cases) {
    const namespace = `case-${name.replaceAll(' ', '-')}`
    standIn.reset()
    standIn.switches = switches
    await clientSequence(baseUrl, namespace, true)
    const report = await driftOf(origin, namespace)
    t.equal(report.compared, 5, `${name}: every request the sandbox served was compared`)
    t.equal(report.skipped, 1, `${name}: the one it refused for its missing key was not sent`)
    if (operationId === '') {
      t.same(report.differences, [], `${name}: no drift`)
      continue
    }
    t.ok(report.count > 0, `${name}: drift is found`)
    t.same(
      [...new Set(report.differences.map((d) => d.operationId))],
      [operationId],
      `${name}: only ${operationId} drifts`,
    )
    for (const pointer of pointers)
      t.ok(
        report.differences.some((d) => d.pointer === pointer),
        `${name}: ${pointer} is named`,
      )
    t.same(Object.keys(report.operations).sort(), ['createPet', 'getPet', 'listPets'], 'counts per operation')
    t.equal(report.operations[operationId]?.differences, report.count)
  }

  const reset = await fetch(`${origin}/__admin/reset?namespace=case-a-status`, { method: 'POST', headers: ADMIN })
  t.equal(reset.status, 200)
  t.same((await driftOf(origin, 'case-a-status')).differences, [], 'a reset clears the drift')
  const gone = await fetch(`${origin}/__admin/namespaces/case-list-order`, { method: 'DELETE', headers: ADMIN })
  t.equal(gone.status, 200)
  t.equal(
    (await fetch(`${origin}/__admin/drift?namespace=case-list-order`, { headers: ADMIN })).status,
    404,
    'a deleted namespace has no drift left',
  )
  t.ok(
    standIn.authorizations.every((header) => header === `Bearer ${UPSTREAM_KEY}`),
    'the upstream got its own key, never the sandbox’s',
  )
})

t.test('a refused request never reaches the upstream; a served one carries no client credential', async (t) => {
  standIn.reset()
  const [received, authorizations] = [standIn.received.length, standIn.authorizations.length]
  const json = { ...AUTH, 'content-type': 'application/json' }
  const kept: [string, number, string, RequestInit][] = [
    ['the admin token sent to the API by mistake', 401, '/pets', { headers: ADMIN }],
    ['no key', 401, '/pets', {}],
    ['a bad parameter', 400, '/pets?limit=many', { headers: AUTH }],
    ['a body that breaks the schema', 400, '/pets', { method: 'POST', headers: json, body: '{"name":"x"}' }],
    [
      'a body not JSON',
      415,
      '/pets',
      { method: 'POST', headers: { ...AUTH, 'content-type': 'text/plain' }, body: 'x' },
    ],
    ['a body too large', 413, '/pets', { method: 'POST', headers: json, body: `"${'x'.repeat(2 * 1024 * 1024)}"` }],
    ['no such route', 404, '/nowhere', { headers: AUTH }],
    ['a method not allowed', 405, '/pets', { method: 'DELETE', headers: AUTH }],
    // Served, as the sandbox ignores a query parameter it does not know, but not sent on.
    ['the admin token in the query', 200, `/pets?limit=1&token=${ADMIN_TOKEN}`, { headers: AUTH }],
  ]
  for (const [name, status, target, init] of kept) {
    const answer = await fetch(`${baseUrl}${target}`, init)
    t.equal(answer.status, status, `${name}: ${status}`)
    await answer.arrayBuffer()
  }
  // Served: a list, and a pet that is not there (an answer about the data, not a refusal).
  const credentials = {
    cookie: `session=${API_KEY}`,
    'x-api-key': API_KEY,
    'proxy-authorization': `Bearer ${ADMIN_TOKEN}`,
    'x-custom-token': ADMIN_TOKEN,
  }
  for (const [target, status] of [
    ['/pets?limit=1', 200],
    ['/pets/999999', 404],
  ] as const) {
    const answer = await fetch(`${baseUrl}${target}`, { headers: { ...AUTH, ...credentials } })
    t.equal(answer.status, status)
    await answer.arrayBuffer()
  }

  const report = (await (await fetch(`${origin}/__admin/drift`, { headers: ADMIN })).json()) as {
    compared: number
    skipped: number
  }
  t.equal(report.compared, 2, 'the two served requests were compared')
  t.equal(report.skipped, 7, 'the requests of an operation not sent are counted as skipped (a route unknown is none)')
  t.equal(standIn.received.length - received, 2, 'the upstream received the two served requests alone')
  t.same(
    standIn.authorizations.slice(authorizations),
    [`Bearer ${UPSTREAM_KEY}`, `Bearer ${UPSTREAM_KEY}`],
    'each with its own key',
  )
  for (const headers of standIn.received.slice(received)) {
    t.notOk('cookie' in headers || 'x-api-key' in headers || 'proxy-authorization' in headers, 'no credential header')
    const sent = JSON.stringify(headers)
    t.notOk(sent.includes(API_KEY) || sent.includes(ADMIN_TOKEN), 'no sandbox secret in any header')
  }
})

t.test('compare: POST goes upstream only with UPSTREAM_UNSAFE=on', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  const { origin, baseUrl } = await startTestSandbox(t, { ADMIN_TOKEN, ...upstream })
  const created = await fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ name: 'Local', categoryId: 1 }),
  })
  t.equal(created.status, 201)
  await (await fetch(`${baseUrl}/pets?limit=1`, { headers: AUTH })).arrayBuffer()
  const report = await driftOf(origin, 'default')
  t.equal(report.skipped, 1, 'the POST is skipped')
  t.equal(report.compared, 1, 'the GET is compared')
  t.notOk(standIn.authorizations.length > 1, 'the upstream saw one request')
})

t.test('passthrough: what the sandbox does not implement is the upstream’s answer', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  const { baseUrl } = await startTestSandbox(t, {
    ...upstream,
    UPSTREAM_MODE: 'passthrough',
  })
  const orders = await fetch(`${baseUrl}/store/orders`, { headers: AUTH })
  t.equal(orders.status, 200)
  t.same(await orders.json(), [{ id: 1, petId: 3, quantity: 1 }])
  const pets = await fetch(`${baseUrl}/pets?limit=2`, { headers: AUTH })
  t.equal(pets.status, 200, 'the rest is the sandbox’s own')
  t.equal(standIn.authorizations.length, 1, 'only the orders went upstream')
  const unauthorized = await fetch(`${baseUrl}/store/orders`)
  t.equal(unauthorized.status, 401, 'a request without the sandbox key never goes upstream')
  t.equal(standIn.authorizations.length, 1)
})
