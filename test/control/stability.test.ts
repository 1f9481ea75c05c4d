// x-stability: none of the served operations carries one, so these tests serve a copy of the
// contract (SPEC_FILE) that marks createPet beta. Its answers carry X-Stability, the coverage
// report lists it, and MIN_STABILITY=stable refuses it with a clear Error body.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { AnimalStoreControlClient } from '../../modules/node/src/client.js'
import { ADMIN_AUTH, ADMIN_TOKEN, startControlSandbox } from '../support/control.js'
import { ROOT, runCliToEnd, tempDir } from '../support/sandbox.js'
import { specMarking } from '../support/spec-copy.js'

const NEW_PET = { name: 'Rex', categoryId: 3 }

t.test('the served spec marks nothing: no answer carries X-Stability', async (t) => {
  const { api, control } = await startControlSandbox(t, { MIN_STABILITY: 'stable' })
  const created = await api('POST', '/pets', NEW_PET)
  t.equal(created.status, 201, 'served under MIN_STABILITY=stable')
  t.equal(created.headers.get('x-stability'), null)
  const report = (await control('GET', '/coverage')).body
  t.match(report.operations, Array(4).fill({ stability: 'stable' }), 'every operation stable')
})

t.test('a beta operation: X-Stability on each answer, listed in the coverage report', async (t) => {
  const { api, control, origin } = await startControlSandbox(t, { SPEC_FILE: await specMarking(t, 'beta') })
  const created = await api('POST', '/pets', NEW_PET)
  t.equal(created.status, 201, 'served by default')
  t.equal(created.headers.get('x-stability'), 'beta')
  const refused = await api('POST', '/pets', { name: 'Rex' })
  t.equal(refused.status, 400)
  t.equal(refused.headers.get('x-stability'), 'beta', 'on Error answers too')
  t.equal((await api('GET', '/pets')).headers.get('x-stability'), null, 'not on the stable ones')

  const report = (await control('GET', '/coverage')).body
  t.match(report.operations[1], { operationId: 'createPet', stability: 'beta', calls: 2 })
  t.same(report.unstableCalls, [
    { operationId: 'createPet', method: 'POST', path: '/v1/pets', stability: 'beta', calls: 2 },
  ])
  t.equal(report.summary.unstableCalls, 2)
  t.equal(
    report.unstableCallsMessage,
    'operations below stable called (namespace default):\n- createPet (POST /v1/pets, x-stability beta): 2 calls',
    'the words an assertion of none raises',
  )
  const client = new AnimalStoreControlClient(origin, { adminToken: ADMIN_TOKEN })
  await t.rejects(client.assertNoUnstableCalls(), {
    name: 'AnimalStoreAssertionError',
    message: report.unstableCallsMessage,
  })
  const markdown = await (await fetch(`${origin}/__admin/coverage?format=markdown`, { headers: ADMIN_AUTH })).text()
  t.match(markdown, '| `createPet` POST /v1/pets (beta) |')
  t.match(markdown, '## Experimental or beta operations called\n\n- `createPet` (POST /v1/pets, beta): 2 calls')

  const page = await (await fetch(`${origin}/docs`)).text()
  t.match(
    page,
    /<strong>Beta:<\/strong> <code>POST \/v1\/pets<\/code> \(createPet\) is marked <code>x-stability: beta<\/code>\. Its answers carry <code>X-Stability: beta<\/code>\./,
    'the explorer shows the marker',
  )
  t.notMatch(page, 'x-stability: stable', 'and nothing of the unmarked operations')
})

t.test('MIN_STABILITY=stable refuses the beta operation with a clear Error body; beta serves it', async (t) => {
  const spec = await specMarking(t, 'beta')
  const strict = await startControlSandbox(t, { SPEC_FILE: spec, MIN_STABILITY: 'stable' })
  const refused = await strict.api('POST', '/pets', NEW_PET)
  t.equal(refused.status, 403)
  t.same(refused.body, {
    code: 'unstable_operation',
    message:
      'createPet is marked x-stability: beta, and this sandbox serves only operations at least stable (MIN_STABILITY=stable)',
    status: 403,
  })
  t.equal(refused.headers.get('x-stability'), 'beta')
  t.equal((await strict.api('GET', '/pets')).status, 200, 'the stable operations are served')
  const explorer = await (await fetch(`${strict.origin}/docs`)).text()
  t.match(explorer, 'This sandbox refuses it (<code>MIN_STABILITY=stable</code>)', 'the explorer says so')
  const about = await (await fetch(`${strict.origin}/`, { headers: { accept: 'application/json' } })).json()
  t.equal((about as { settings: Record<string, unknown> }).settings['minStability'], 'stable', 'and GET /')
  const unauthenticated = await fetch(`${strict.baseUrl}/pets`, { method: 'POST', body: '{}' })
  t.equal(unauthenticated.status, 401, 'the key is checked first')
  t.equal((await strict.control('GET', '/pets')).body.length, 60, 'nothing was stored')
  const journal = (await strict.control('GET', '/requests?operationId=createPet')).body
  t.match(journal.entries[0], { status: 403, error: { code: 'unstable_operation' } }, 'the journal records the refusal')
  const report = (await strict.control('GET', '/coverage')).body
  t.same(report.operations[1].undocumented, [{ status: 403, code: 'unstable_operation', calls: 1 }])

  const forced = await strict.api('GET', '/store/orders', undefined, { prefer: 'code=403' })
  t.match(forced.body, { code: 'injected_fault', status: 403 }, 'a forced 403 is not the refusal')

  const orders = await startControlSandbox(t, {
    SPEC_FILE: await specMarking(t, 'beta', 'listOrders'),
    MIN_STABILITY: 'stable',
  })
  t.equal((await orders.api('GET', '/store/orders')).status, 403)
  t.match(
    (await orders.control('GET', '/coverage')).body.operations[3],
    {
      operationId: 'listOrders',
      responses: [{ status: 'default', exercised: false, calls: 0 }],
      undocumented: [{ status: 403, code: 'unstable_operation', calls: 1 }],
    },
    'a refusal does not exercise the default response',
  )

  const beta = await startControlSandbox(t, { SPEC_FILE: spec, MIN_STABILITY: 'beta' })
  t.equal((await beta.api('POST', '/pets', NEW_PET)).status, 201, 'MIN_STABILITY=beta serves beta')
  const experimental = await startControlSandbox(t, {
    SPEC_FILE: await specMarking(t, 'experimental'),
    MIN_STABILITY: 'beta',
  })
  t.equal((await experimental.api('POST', '/pets', NEW_PET)).status, 403, 'and refuses experimental')
})

t.test('bad settings stop the start, naming them', async (t) => {
  t.throws(() => loadConfig([], { MIN_STABILITY: 'alpha' }), {
    name: 'ConfigError',
    message: 'MIN_STABILITY must be one of experimental, beta, stable, got "alpha"',
  })
  t.throws(() => loadConfig(['--spec-file', '/nowhere/openapi.yaml'], {}), {
    message: '--spec-file: no file at /nowhere/openapi.yaml',
  })
  const unknownMarker = await runCliToEnd({ SPEC_FILE: await specMarking(t, 'alpha'), DATA_FILE: ':memory:' })
  t.equal(unknownMarker.code, 2)
  t.match(
    unknownMarker.stderr,
    /^animal-store-sandbox: SPEC_FILE .*openapi\.yaml cannot be served: spec: createPet has x-stability "alpha"; it must be one of experimental, beta, stable\n/,
  )
  const dir = await tempDir(t)
  const fewer = join(dir, 'openapi.yaml')
  const text = await readFile(join(ROOT, 'spec/openapi.yaml'), 'utf8')
  await writeFile(fewer, text.replace('operationId: listOrders', 'operationId: listAllOrders'))
  const other = await runCliToEnd({ SPEC_FILE: fewer, DATA_FILE: ':memory:' })
  t.equal(other.code, 2)
  t.match(
    other.stderr,
    /cannot be served: its operations must be those of the sandbox \(createPet, getPet, listOrders, listPets\), got createPet, getPet, listAllOrders, listPets/,
  )
})
