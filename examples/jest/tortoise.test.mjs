import { expect, test } from '@jest/globals'
import { api, ownNamespace } from './sandbox.mjs'

test('a tortoise: one listPets answers an injected 503, the next one 200', async () => {
  const namespace = await ownNamespace()
  // The dog test lists pets at the same time, in its own namespace: this fault is not its.
  await namespace.api.POST('/faults', { body: { operationId: 'listPets', status: 503, times: 1 } })
  const failed = await api(namespace, 'GET', '/pets')
  expect(failed.status).toBe(503)
  expect(await failed.json()).toMatchObject({ code: 'injected_fault', status: 503 })
  expect((await api(namespace, 'GET', '/pets')).status).toBe(200)
  // The one operation this suite covers whole: the end-of-suite check asserts it (see the global setup).
  expect((await api(namespace, 'GET', '/store/orders')).status).toBe(501)
})
