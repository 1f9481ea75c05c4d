// The control client's opt-in assertions against a real sandbox: each rejects with a readable list
// of what is missing, and resolves when nothing is.
import t from 'tap'
import { AnimalStoreAssertionError, AnimalStoreControlClient, DEFAULT_API_KEY } from '../../modules/node/src/client.js'
import { startTestSandbox } from '../support/sandbox.js'

t.test('the assertions through a namespace handle', async (t) => {
  const { origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'client-admin', API_KEYS: DEFAULT_API_KEY })
  const sandbox = new AnimalStoreControlClient(origin, { adminToken: 'client-admin' })
  const t1 = sandbox.namespace('t1')
  await t1.api.POST('/reset')
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${t1.apiBaseUrl}${path}`, {
      ...init,
      headers: { ...t1.apiHeaders, 'content-type': 'application/json', ...init.headers },
    })
  await call('/pets', { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 3 }) })
  await call('/pets', { method: 'POST', body: JSON.stringify({ name: 'Rex' }) })
  await call('/pets/1')

  // Malformed JSON and the forced 400 are not asked for: a conforming client causes neither.
  await t.rejects(t1.assertAllResponsesExercised(['createPet']), {
    name: 'AnimalStoreAssertionError',
    message: 'createPet (POST /v1/pets), namespace t1: never exercised 401',
  })
  await call('/pets', { method: 'POST', body: '{}', headers: { authorization: 'Bearer not-a-key' } })
  const report = await t1.assertAllResponsesExercised(['createPet'])
  t.equal(report.namespace, 't1', 'every response of createPet a conforming client can cause exercised')
  t.same(
    report.operations
      .find((op) => op.operationId === 'createPet')
      ?.responses.filter((r) => !r.exercised)
      .map((r) => [r.label, r.reachable]),
    [
      ['400 malformed_json', false],
      ['400 bad_request', false],
    ],
    'the two left are marked unreachable',
  )
  const all = await t1.assertAllResponsesExercised().catch((error: unknown) => error)
  const { complete, message } = await t1.assertNoUnstableCalls()
  t.notOk(complete)
  t.match(message, /^getPet \(GET \/v1\/pets\/\{petId\}\), namespace t1: never exercised 401, /m)
  t.equal((all as Error).message, message, "all operations when none is named: the report's message as it is")
  // An operationId the API lacks is a TypeError.
  await t.rejects(t1.assertAllResponsesExercised(['deletePet']), {
    name: 'TypeError',
    message: /no operation deletePet/,
  })

  const deprecated = await t1.assertNoDeprecatedCalls().catch((error: unknown) => error)
  t.type(deprecated, AnimalStoreAssertionError)
  t.equal(
    (deprecated as Error).message,
    'deprecated operations called (namespace t1):\n- getPet (GET /v1/pets/{petId}): 1 call, sunset 2030-12-05, use /v1/pets instead',
    "the report's deprecatedCallsMessage as it is",
  )
  await t1.assertNoUnstableCalls()
  await sandbox.assertNoDeprecatedCalls()

  // The sandbox's own words: verify's message.
  await t.rejects(t1.assertVerified([{ operationId: 'getPet', count: 1 }], { strict: true }), {
    name: 'AnimalStoreAssertionError',
    message: /^failed:\n- unexpected call \(strict\): #1 POST \/v1\/pets → 201 \(createPet\)\n/,
  })
  await t.rejects(t1.assertVerified([{ operationId: 'createPet', body: { name: 'Max', categoryId: 3 } }]), {
    message: /\n {2}#1 POST \/v1\/pets → 201 \(createPet\):\n {4}createPet body \/name: expected "Max", got "Rex"/,
  })
  t.equal((await t1.assertVerified([{ operationId: 'getPet', count: 1 }])).passed, true)
})
