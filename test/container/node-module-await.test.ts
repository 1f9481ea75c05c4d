// The Node module's wait and stray calls against the image: a background timer makes the call
// after a random delay and the test awaits it on the sandbox with no sleep; a call into the
// namespace after its test ended makes assertNoStrayCalls fail, naming it.
import { randomInt } from 'node:crypto'
import t from 'tap'
import { AnimalStoreAssertionError, AnimalStoreContainer } from '../../modules/node/src/index.js'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'

t.setTimeout(5 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false
if (skip) t.comment(`skipping the container tests: ${skip}`)

t.test('awaitRequests and assertNoStrayCalls against the image', { skip }, async (t) => {
  await ensureImage()
  const sandbox = await new AnimalStoreContainer(IMAGE).withInMemory().start()
  t.teardown(() => sandbox.stop({ remove: true, removeVolumes: true }))

  t.test('a call a background job makes after a random delay is awaited, with no sleep', async (t) => {
    const ns = sandbox.namespace('await-job')
    await ns.api.POST('/reset')
    const delay = randomInt(0, 1000)
    const job = new Promise<number>((resolve, reject) =>
      setTimeout(
        () =>
          fetch(`${ns.apiBaseUrl}/pets`, { headers: ns.apiHeaders }).then(async (res) => {
            await res.arrayBuffer()
            resolve(res.status)
          }, reject),
        delay,
      ),
    )
    const result = await ns.assertAwaited([{ operationId: 'listPets', count: 1 }], { timeoutMs: 10_000 })
    t.match(result, { passed: true, endedBy: 'met', namespace: 'await-job' }, `awaited the call made after ${delay} ms`)
    t.equal(await job, 200)

    const missing = await ns.awaitRequests([{ operationId: 'createPet', min: 1 }], { timeoutMs: 200 })
    t.match(missing, { passed: false, endedBy: 'deadline' }, 'a call never made: the deadline, with verify’s result')
    await t.rejects(
      ns.assertAwaited([{ operationId: 'createPet', min: 1 }], { timeoutMs: 200 }),
      { name: 'AnimalStoreAssertionError', message: /createPet[\s\S]*the wait ended by deadline after \d+ ms/ },
      'assertAwaited raises the sandbox’s message',
    )
  })

  t.test('a call after the test ended fails assertNoStrayCalls, named', async (t) => {
    const ns = sandbox.namespace('stray-job')
    await ns.api.POST('/reset')
    await fetch(`${ns.apiBaseUrl}/pets`, { headers: ns.apiHeaders }).then((res) => res.arrayBuffer())
    // The service settles before its test ends: the namespace quiet for 10 ms.
    t.match(await ns.awaitRequests([], { quietMs: 10 }), { endedBy: 'quiet' })
    await ns.api.POST('/namespaces/{name}/end', { params: { path: { name: 'stray-job' } } })
    t.equal((await ns.strayCalls()).count, 0, 'the call made during the test is no stray')
    await fetch(`${ns.apiBaseUrl}/pets`, { headers: ns.apiHeaders }).then((res) => res.arrayBuffer())
    const error = await ns.assertNoStrayCalls().catch((e: unknown) => e)
    t.type(error, AnimalStoreAssertionError)
    t.equal(
      (error as Error).message,
      'stray calls (test stray-job):\n- after-end: listPets (GET /v1/pets) answered 200, in namespace stray-job',
      "the stray calls report's message as it is",
    )
    await t.resolves(sandbox.namespace('other-test').assertNoStrayCalls(), 'another test’s handle sees none of them')
  })
})
