import { expect, test } from '@jest/globals'
import { api, ownNamespace } from './sandbox.mjs'

test('a dog: created and listed in a namespace of its own, then one getPet answers 503', async () => {
  const namespace = await ownNamespace()
  const listPending = async () => (await api(namespace, 'GET', '/pets?status=pending&limit=100')).json()
  const before = await listPending()

  const newPet = { name: 'Rex', categoryId: 1, status: 'pending' }
  const created = await api(namespace, 'POST', '/pets', newPet)
  expect(created.status).toBe(201)
  const pet = await created.json()
  // The other test files create pending pets at the same time, each in its own namespace.
  expect(await listPending()).toEqual([...before, pet])

  await namespace.addFault({ operationId: 'getPet', status: 503, times: 1 })
  const failed = await api(namespace, 'GET', `/pets/${pet.id}`)
  expect(failed.status).toBe(503)
  expect(await failed.json()).toMatchObject({ code: 'injected_fault', status: 503 })
  expect((await api(namespace, 'GET', `/pets/${pet.id}`)).status).toBe(200)
})
