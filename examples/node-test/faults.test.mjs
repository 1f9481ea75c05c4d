import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('an armed fault answers the next call with 503, then the service is back', async (t) => {
  const namespace = await ownNamespace(t)
  await namespace.addFault({ operationId: 'listPets', status: 503, times: 1 })
  assert.equal((await api(namespace, 'GET', '/pets')).status, 503)
  assert.equal((await api(namespace, 'GET', '/pets')).status, 200)
})
