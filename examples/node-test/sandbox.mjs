// What every test file shares: the control client of the run's sandbox, and a namespace per test.
import process from 'node:process'
import { AnimalStoreControlClient } from 'animal-store-sandbox/client'

export const sandbox = new AnimalStoreControlClient(process.env.SANDBOX_ORIGIN, {
  adminToken: process.env.SANDBOX_ADMIN_TOKEN,
  apiKey: process.env.SANDBOX_API_KEY,
})

/** A namespace of the test's own, at its initial data, deleted when the test ends. */
export async function ownNamespace(t) {
  const namespace = sandbox.namespace(`${t.name.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40)}-${process.pid}`)
  await namespace.reset()
  t.after(() => sandbox.deleteNamespace(namespace.name))
  return namespace
}

/** Sends an API request in the namespace; `body` is sent as JSON. */
export function api(namespace, method, path, body) {
  return fetch(`${namespace.apiBaseUrl}${path}`, {
    method,
    headers: { ...namespace.apiHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}
