// What every test file shares: the control client of the run's sandbox (run.mjs gives its origin
// and tokens), a namespace of each test's own, and the calls a test makes.
import { randomUUID } from 'node:crypto'
import process from 'node:process'
import { AnimalStoreControlClient } from 'animal-store-sandbox-testcontainers/client'

const origin = process.env.SANDBOX_ORIGIN
const sandbox = new AnimalStoreControlClient(origin, {
  adminToken: process.env.SANDBOX_ADMIN_TOKEN,
  apiKey: process.env.SANDBOX_API_KEY,
})

/**
 * A namespace no other test uses (a random name: runs may share a sandbox), at the initial data;
 * deleted when the test ends, with a line that says which namespace, sandbox and worker it had.
 */
export async function ownNamespace(t) {
  const namespace = sandbox.namespace(`test-${randomUUID()}`)
  await namespace.api.POST('/reset')
  t.after(async () => {
    await sandbox.api.DELETE('/namespaces/{name}', { params: { path: { name: namespace.name } } })
    console.log(`namespace ${namespace.name} on ${origin} in worker ${process.pid}`)
  })
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
