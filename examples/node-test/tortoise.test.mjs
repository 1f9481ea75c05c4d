import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('a tortoise: created and listed in a namespace of its own, then one getPet answers 503', async (t) => {
  const namespace = await ownNamespace(t)
  const listPending = async () => (await api(namespace, 'GET', '/pets?status=pending&limit=100')).json()
  const before = await listPending()

  const newPet = { name: 'Shelly', categoryId: 4, status: 'pending' }
  const created = await api(namespace, 'POST', '/pets', newPet)
  assert.equal(created.status, 201)
  const pet = await created.json()
  // The other test files create pending pets at the same time, each in its own namespace.
  assert.deepEqual(await listPending(), [...before, pet])
  assert.deepEqual(await (await api(namespace, 'GET', `/pets/${pet.id}`)).json(), pet)

  await namespace.addFault({ operationId: 'getPet', status: 503, times: 1 })
  const failed = await api(namespace, 'GET', `/pets/${pet.id}`)
  assert.equal(failed.status, 503)
  assert.equal((await failed.json()).code, 'injected_fault')
  assert.equal((await api(namespace, 'GET', `/pets/${pet.id}`)).status, 200)
  // The one operation this suite covers whole: the end-of-suite check asserts it (see the global setup).
  assert.equal((await api(namespace, 'GET', '/store/orders')).status, 501)
})
