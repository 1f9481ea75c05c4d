// The embedding API as an embedder sees it: only what src/index.ts exports.
import t from 'tap'
import { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY, startInProcess, type Pet } from '../../src/index.js'

t.test('startInProcess: a seeded sandbox on a free port, its API and its control API', async (t) => {
  const sandbox = await startInProcess({ SEED: '7', SEED_COUNT: '5' })
  t.teardown(() => sandbox.close())
  t.match(sandbox.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/)
  const auth = { authorization: `Bearer ${DEFAULT_API_KEY}` }

  const listed = (await (await fetch(`${sandbox.baseUrl}/pets`, { headers: auth })).json()) as Pet[]
  t.same(
    listed.map((pet) => pet.id),
    [1, 2, 3, 4, 5],
    'the five seeded pets',
  )
  const created = await fetch(`${sandbox.baseUrl}/pets`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Embedded Emu', categoryId: 1 }),
  })
  t.equal(created.status, 201)
  const pet = (await created.json()) as Pet
  t.same(await (await fetch(`${sandbox.baseUrl}/pets/${pet.id}`, { headers: auth })).json(), pet)

  const reset = await fetch(`${sandbox.origin}/__admin/reset`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEFAULT_ADMIN_TOKEN}` },
  })
  t.same(await reset.json(), { namespace: 'default', pets: 5 }, 'the control API resets to the seeded data')
  t.equal((await fetch(`${sandbox.baseUrl}/pets/${pet.id}`, { headers: auth })).status, 404)
})

t.test('startInProcess: a bad setting rejects with the message that names it', async (t) => {
  await t.rejects(startInProcess({ SEED: 'abc' }), /SEED/)
})
