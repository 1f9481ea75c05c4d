// A consumer's view: the types openapi-typescript generates from the spec, used through
// openapi-fetch, work against the sandbox for list, create and get. This file only compiles if
// the spec's paths, parameters and bodies are what a client needs (npm run typecheck covers it).
import createClient from 'openapi-fetch'
import t from 'tap'
import type { paths } from '../../src/contract/api-types.js'
import { API_KEY, startTestSandbox } from '../support/sandbox.js'

t.test('openapi-fetch with the generated types: list, create, get', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${API_KEY}` } })

  const listed = await client.GET('/pets', { params: { query: { limit: 5, status: 'available' } } })
  // What the API answers is api.test.ts's: here, that the typed calls reach it and read it.
  t.equal(listed.data?.length, 5)

  const created = await client.POST('/pets', { body: { name: 'Typed Tabby', categoryId: 4, status: 'pending' } })
  t.match(created.data, { id: Number, name: 'Typed Tabby', categoryId: 4, status: 'pending' })
  const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: created.data?.id ?? 0 } } })
  t.same(fetched.data, created.data, 'get returns what create stored')

  const missing = await client.GET('/pets/{petId}', { params: { path: { petId: 987_654_321 } } })
  t.equal(missing.data, undefined)
  t.match(missing.error, { code: 'not_found', status: 404 }, 'the typed error is the spec Error')
})
