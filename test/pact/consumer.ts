// A consumer of the Animal Store and its functional tests, as a team would write them against the
// sandbox: a small client (its own code, no SDK) and the calls its features make. The Pact tests
// run this suite, export what it did, and verify that Pact.
import type { Test } from 'tap'
import { AnimalStoreControlClient, ok } from '../../modules/node/src/client.js'
import { API_KEY, startTestSandbox } from '../support/sandbox.js'

export interface Pet {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status?: string
}

/** The consumer's client: every call carries its key and, in tests, the namespace of the test. */
export class StoreClient {
  readonly #base: string
  readonly #headers: Record<string, string>
  constructor(base: string, apiKey: string, namespace: string) {
    this.#base = base
    this.#headers = { authorization: `Bearer ${apiKey}`, 'x-sandbox-namespace': namespace }
  }

  async available(limit: number): Promise<Pet[]> {
    const res = await fetch(`${this.#base}/pets?status=available&limit=${limit}`, { headers: this.#headers })
    if (!res.ok) throw new Error(`the shop window answered ${res.status}`)
    return (await res.json()) as Pet[]
  }

  async add(pet: { name: string; categoryId?: number; status?: string }): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.#base}/pets`, {
      method: 'POST',
      headers: { ...this.#headers, 'content-type': 'application/json' },
      body: JSON.stringify(pet),
    })
    return { status: res.status, body: await res.json() }
  }

  async get(id: number): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.#base}/pets/${id}`, { headers: this.#headers })
    return { status: res.status, body: await res.json() }
  }
}

/** The consumer's functional tests: browse, add a pet and open it, a form sent without a category, a stale link. */
export async function consumerSuite(t: Test, client: StoreClient): Promise<void> {
  const shown = await client.available(5)
  t.ok(shown.length > 0 && shown.every((pet) => pet.status === 'available'), 'the shop window lists available pets')
  for (const name of ['Rex', 'Tom']) {
    const added = await client.add({ name, categoryId: 2, status: 'pending' })
    t.equal(added.status, 201, `adding ${name} succeeds`)
    const opened = await client.get(added.body.id)
    t.same(opened.body, added.body, `the page of ${name} shows the pet added`)
  }
  const incomplete = await client.add({ name: 'Nameless category' })
  t.equal(incomplete.status, 400, 'a form without a category is refused')
  const stale = await client.get(987654321)
  t.equal(stale.status, 404, 'a stale link finds nothing')
}

/** The Pact of a run of the suite in a namespace started from seed 7, on a sandbox of its own. */
export async function exportedPact(t: Test): Promise<any> {
  const sandbox = await startTestSandbox(t)
  const namespace = new AnimalStoreControlClient(sandbox.origin, { apiKey: API_KEY }).namespace('web-shop')
  await namespace.api.POST('/reset', { body: { seed: 7, count: 20 } })
  await t.test('the consumer suite', (t) => consumerSuite(t, new StoreClient(sandbox.baseUrl, API_KEY, 'web-shop')))
  return ok(namespace.api.GET('/pact', { params: { query: { consumer: 'web-shop', provider: 'animal-store' } } }))
}
