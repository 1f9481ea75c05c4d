import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('a dog: created, and listed in a namespace of its own', async (t) => {
  const namespace = await ownNamespace(t)
  const listPending = async () => (await api(namespace, 'GET', '/pets?status=pending&limit=100')).json()
  const before = await listPending()

  const created = await api(namespace, 'POST', '/pets', { name: 'Rex', categoryId: 1, status: 'pending' })
  assert.equal(created.status, 201)
  // The tortoise test arms a fault on listing pets at the same time, in its own namespace.
  assert.deepEqual(await listPending(), [...before, await created.json()])
})
