// Compare mode against a stand-in real API (stand-in.ts): no drift when both follow the interface,
// and each rule the stand-in changes is named, with its operation and pointer, and nothing else.
import t from 'tap'
import { AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'
import { clientSequence, standInFor, type Switches } from './stand-in.js'

const UPSTREAM_KEY = 'upstream-secret-key-7f3a'
const ADMIN = { authorization: 'Bearer compare-admin' }

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

t.test('compare: each switch of the stand-in is named with its operation and pointer, nothing else', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  const { origin, baseUrl } = await startTestSandbox(t, {
    ADMIN_TOKEN: 'compare-admin',
    ...upstream,
    UPSTREAM_UNSAFE: 'on',
  })

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

t.test('compare: POST goes upstream only with UPSTREAM_UNSAFE=on', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  const { origin, baseUrl } = await startTestSandbox(t, {
    ADMIN_TOKEN: 'compare-admin',
    ...upstream,
  })
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
