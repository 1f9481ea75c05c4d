import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('a tortoise: one listPets answers an injected 503, the next one 200', async (t) => {
  const namespace = await ownNamespace(t)
  // The dog test lists pets at the same time, in its own namespace: this fault is not its.
  await namespace.api.POST('/faults', { body: { operationId: 'listPets', status: 503, times: 1 } })
  const failed = await api(namespace, 'GET', '/pets')
  assert.equal(failed.status, 503)
  assert.equal((await failed.json()).code, 'injected_fault')
  assert.equal((await api(namespace, 'GET', '/pets')).status, 200)
  // The one operation this suite covers whole: the end-of-suite check asserts it (see the global setup).
  assert.equal((await api(namespace, 'GET', '/store/orders')).status, 501)
})
