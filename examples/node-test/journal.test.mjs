import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('the journal shows the calls the test made', async (t) => {
  const namespace = await ownNamespace(t)
  await (await api(namespace, 'GET', '/pets?limit=2')).arrayBuffer()
  // The journal records a request once its answer is sent: wait (bounded) for it.
  let count = 0
  for (let i = 0; i < 50 && count === 0; i++, await new Promise((resolve) => setTimeout(resolve, 100))) {
    ;({ count } = await namespace.listRequests({ operationId: 'listPets' }))
  }
  assert.equal(count, 1)
})
