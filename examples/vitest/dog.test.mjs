import { expect, test } from 'vitest'
import { api, ownNamespace } from './sandbox.mjs'

test('a dog: created, and listed in a namespace of its own', async (context) => {
  const namespace = await ownNamespace(context)
  const listPending = async () => (await api(namespace, 'GET', '/pets?status=pending&limit=100')).json()
  const before = await listPending()

  const created = await api(namespace, 'POST', '/pets', { name: 'Rex', categoryId: 1, status: 'pending' })
  expect(created.status).toBe(201)
  // The tortoise test arms a fault on listing pets at the same time, in its own namespace.
  expect(await listPending()).toEqual([...before, await created.json()])
})
