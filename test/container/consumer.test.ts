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
  t.equal(listed.response.status, 200)
  t.ok(listed.data && listed.data.length > 0 && listed.data.length <= 5, 'at most 5 pets')
  t.ok(
    listed.data?.every((pet) => pet.status === 'available'),
    'only available pets',
  )

  const created = await client.POST('/pets', { body: { name: 'Typed Tabby', categoryId: 4, status: 'pending' } })
  t.equal(created.response.status, 201)
  const id = created.data?.id
  t.type(id, 'number')
  t.match(created.data, { name: 'Typed Tabby', categoryId: 4, status: 'pending' })
  t.equal(created.response.headers.get('location'), `/v1/pets/${id}`)

  const fetched = await client.GET('/pets/{petId}', { params: { path: { petId: id ?? 0 } } })
  t.equal(fetched.response.status, 200)
  t.same(fetched.data, created.data, 'get returns what create stored')

  const missing = await client.GET('/pets/{petId}', { params: { path: { petId: 987_654_321 } } })
  t.equal(missing.response.status, 404)
  t.equal(missing.data, undefined)
  t.match(missing.error, { code: 'not_found', status: 404 }, 'the typed error is the spec Error')
})
