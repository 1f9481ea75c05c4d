import t from 'tap'
import { AUTH, JSON_HEADERS, startTestSandbox } from './helpers.js'

t.test('GET /v1/pets → 200 with the first 20 pets in id order', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const res = await fetch(`${baseUrl}/pets`, { headers: AUTH })
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^application\/json/)
  const pets = (await res.json()) as Array<{ id: number }>
  t.equal(pets.length, 20)
  t.same(pets.map((p) => p.id), Array.from({ length: 20 }, (_, i) => i + 1))
})
