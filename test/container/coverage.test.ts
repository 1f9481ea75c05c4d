// The coverage report and verify against the container, through the TypeScript control client: a
// scripted consumer suite runs, and the report names exactly the responses it provoked and those
// it did not, flags its getPet calls as deprecated with the 2030-12-05 sunset, and shows its call
// of a beta-marked operation refused (MIN_STABILITY=stable, with a spec copy that marks
// listOrders beta); a verify with one wrong expectation names the closest call with a field-level
// diff, and strict mode names the unexpected call.
import t from 'tap'
import { AnimalStoreAssertionError } from '../../modules/node/src/client.js'
import { AnimalStoreContainer } from '../../modules/node/src/index.js'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'
import { specMarking } from '../support/spec-copy.js'

t.setTimeout(10 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false

t.test('a consumer suite against the container: report, deprecation, refusal, verify', { skip }, async (t) => {
  await ensureImage()
  const spec = await specMarking(t, 'beta', 'listOrders')
  // The spec copy goes in through the engine's API (as withFixtures does), not a bind mount: the
  // engine may see another file system than this test (a remote engine, a chroot).
  const container = await new AnimalStoreContainer(IMAGE)
    .withInMemory()
    .withEnvironment({ MIN_STABILITY: 'stable', SPEC_FILE: '/spec-copy/openapi.yaml' })
    .withCopyFilesToContainer([{ source: spec, target: '/spec-copy/openapi.yaml', mode: 0o644 }])
    .start()
  t.teardown(() => container.stop())
  const sandbox = container.controlClient()
  const suite = sandbox.namespace('consumer')
  await suite.reset()

  // The consumer's suite, as its tests would call the API.
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(`${suite.apiBaseUrl}${path}`, {
      ...init,
      headers: { ...suite.apiHeaders, 'content-type': 'application/json', ...init.headers },
    })
    await res.arrayBuffer()
    return res
  }
  t.equal((await call('/pets?status=available')).status, 200)
  t.equal((await call('/pets', { headers: { authorization: 'Bearer expired-key' } })).status, 401)
  t.equal((await call('/pets', { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 3 }) })).status, 201)
  t.equal((await call('/pets', { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: '3' }) })).status, 400)
  t.equal((await call('/pets/1')).status, 200)
  t.equal((await call('/pets/987654')).status, 404)
  const orders = await fetch(`${suite.apiBaseUrl}/store/orders`, { headers: suite.apiHeaders })
  t.equal(orders.status, 403, 'the beta operation is refused')
  t.equal(orders.headers.get('x-stability'), 'beta')
  t.match(await orders.json(), { code: 'unstable_operation', status: 403, message: /x-stability: beta/ })

  const report = await suite.getCoverage()
  const exercised = report.operations.flatMap((op) =>
    op.responses.filter((r) => r.exercised).map((r) => `${op.operationId} ${r.label}`),
  )
  const never = report.operations.flatMap((op) =>
    op.responses.filter((r) => !r.exercised).map((r) => `${op.operationId} ${r.label}`),
  )
  t.same(exercised, [
    'listPets 200',
    'listPets 401',
    'createPet 201',
    'createPet 400 invalid_body',
    'getPet 200',
    'getPet 404',
  ])
  t.same(never, [
    'createPet 400 malformed_json',
    'createPet 400 bad_request',
    'createPet 401',
    'getPet 401',
    'listOrders default',
  ])
  t.same(report.deprecatedCalls, [
    {
      operationId: 'getPet',
      method: 'GET',
      path: '/v1/pets/{petId}',
      calls: 2,
      sunset: '2030-12-05T00:00:00.000Z',
      replacement: '/v1/pets',
    },
  ])
  t.match(report.operations[3], {
    operationId: 'listOrders',
    stability: 'beta',
    undocumented: [{ status: 403, code: 'unstable_operation', calls: 1 }],
  })
  t.same(report.unstableCalls, [
    { operationId: 'listOrders', method: 'GET', path: '/v1/store/orders', stability: 'beta', calls: 1 },
  ])
  await t.rejects(suite.assertNoDeprecatedCalls(), {
    name: 'AnimalStoreAssertionError',
    message: /getPet \(GET \/v1\/pets\/\{petId\}\): 2 calls; removed on 2030-12-05; use \/v1\/pets instead/,
  })

  const wrong = await suite.verify([
    { operationId: 'listPets', min: 1 },
    { operationId: 'createPet', count: 1, body: { name: 'Rex', categoryId: 3, status: 'sold' } },
  ])
  t.equal(wrong.passed, false)
  t.same(
    wrong.expectations.map((e) => e.passed),
    [true, false],
  )
  t.match(wrong.expectations[1]?.closest[0], {
    entry: { id: 3, method: 'POST', path: '/v1/pets', status: 201 },
    differences: [{ message: 'createPet body /status: expected "sold", got nothing' }],
  })

  const strict = await suite
    .assertVerified(
      [
        { operationId: 'listPets', count: 2 },
        { operationId: 'createPet', count: 2 },
        { operationId: 'getPet', count: 2 },
      ],
      { strict: true },
    )
    .catch((error: unknown) => error)
  t.type(strict, AnimalStoreAssertionError)
  t.same((strict as AnimalStoreAssertionError).problems, [
    'unexpected call (strict): #7 GET /v1/store/orders → 403 (listOrders)',
  ])
})
