import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, ownNamespace } from './sandbox.mjs'

test('past its sunset getPet answers 410', async (t) => {
  const namespace = await ownNamespace(t)
  await namespace.setClock('2030-12-05T00:00:00Z')
  assert.equal((await api(namespace, 'GET', '/pets/1')).status, 410)
})
