import { expect, test } from '@jest/globals'
import { api, ownNamespace } from './sandbox.js'

test('a parrot: created, listed, fetched, journaled, then one getPet answers 503', async () => {
  const namespace = await ownNamespace()
  const listPending = async () => (await api(namespace, 'GET', '/pets?status=pending&limit=100')).json()
  const before = await listPending()

  const newPet = { name: 'Polly', categoryId: 3, status: 'pending' }
  const created = await api(namespace, 'POST', '/pets', newPet)
  expect(created.status).toBe(201)
  const pet = await created.json()
  // The other test files create pending pets at the same time, each in its own namespace.
  expect(await listPending()).toEqual([...before, pet])
  expect(await (await api(namespace, 'GET', `/pets/${pet.id}`)).json()).toEqual(pet)

  const journal = await namespace.listRequests({ operationId: 'createPet' })
  expect(journal.count).toBe(1)
  expect(journal.entries[0].body).toEqual(newPet)

  await namespace.addFault({ operationId: 'getPet', status: 503, times: 1 })
  const failed = await api(namespace, 'GET', `/pets/${pet.id}`)
  expect(failed.status).toBe(503)
  expect(await failed.json()).toMatchObject({ code: 'injected_fault', status: 503 })
  expect((await api(namespace, 'GET', `/pets/${pet.id}`)).status).toBe(200)
})
