import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('a created pet can be fetched, in its namespace only', async (t) => {
  const namespace = await ownNamespace(t)
  const created = await api(namespace, 'POST', '/pets', { name: 'Recipe Rex', categoryId: 1 })
  assert.equal(created.status, 201)
  const pet = await created.json()
  assert.deepEqual(await (await api(namespace, 'GET', `/pets/${pet.id}`)).json(), pet)
})
