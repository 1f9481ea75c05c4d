// What every test file shares: the control client of the run's sandbox (the global setup gives its
// origin and tokens), a namespace of each test's own, and the calls a test makes.
import { randomUUID } from 'node:crypto'
import process from 'node:process'
import { afterEach, expect } from '@jest/globals'
import { AnimalStoreControlClient, type NamespaceControl } from 'animal-store-sandbox-testcontainers/client'

const origin = process.env['SANDBOX_ORIGIN'] ?? ''
const sandbox = new AnimalStoreControlClient(origin, {
  adminToken: process.env.SANDBOX_ADMIN_TOKEN,
  apiKey: process.env.SANDBOX_API_KEY,
})

// Jest has no per-test teardown to register from inside a test: each file (this module is loaded
// once per test file) deletes the namespace of its test that just ended.
let current: { namespace: NamespaceControl; started: number } | undefined
afterEach(async () => {
  if (current === undefined) return
  const { namespace, started } = current
  current = undefined
  await sandbox.deleteNamespace(namespace.name)
  console.log(`namespace ${namespace.name} on ${origin} in worker ${process.pid}, ${started}..${Date.now()}`)
})

/**
 * A namespace that no other test uses, at the sandbox's initial data; deleted when the test ends
 * (which frees its slot), with a line that says which namespace, sandbox and worker the test had.
 */
export async function ownNamespace(): Promise<NamespaceControl> {
  const namespace = sandbox.namespace(uniqueName(expect.getState().currentTestName))
  const started = Date.now()
  await namespace.reset()
  current = { namespace, started }
  return namespace
}

/** Sends an API request in the namespace; `body` is sent as JSON. */
export function api(namespace: NamespaceControl, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${namespace.apiBaseUrl}${path}`, {
    method,
    headers: { ...namespace.apiHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

/** A namespace name (1 to 64 letters, digits, _ . -) from the test's name, unique to this test run. */
function uniqueName(testName = 'test'): string {
  const slug = testName
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 40)
  return `${slug}-${randomUUID().slice(0, 8)}`
}
