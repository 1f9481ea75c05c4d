// Cases the fuzzer found, kept as regular tests. (Number rounding: see numbers.test.ts.)
import t from 'tap'
import { AUTH, postPet, startTestSandbox } from '../support/sandbox.js'
import { rawExchange } from '../../scripts/lib/raw-http.js'

t.test('paths are case-sensitive: /V1/PETS is not /v1/pets, POST /__admin/RESET resets nothing', async (t) => {
  const { baseUrl, origin } = await startTestSandbox(t, { ADMIN_TOKEN: 'regression-admin-token' })
  const admin = { authorization: 'Bearer regression-admin-token' }
  const { id } = (await (await postPet(baseUrl, { name: 'Survivor', categoryId: 1 })).json()) as { id: number }
  for (const [method, path, headers] of [
    ...['/V1/PETS', '/v1/Pets'].map((path) => ['GET', path, AUTH] as const),
    ['POST', '/__admin/RESET', admin] as const,
  ]) {
    const res = await fetch(origin + path, { method, headers })
    t.equal(res.status, 404, `${method} ${path} → 404`)
    t.match(await res.json(), { code: 'not_found', status: 404 })
  }
  t.equal((await fetch(`${baseUrl}/pets/${id}`, { headers: AUTH })).status, 200, 'the exact path is served, not reset')
  const reset = await fetch(`${origin}/__admin/reset`, { method: 'POST', headers: admin })
  t.equal(reset.status, 200, 'the exact path still resets')
})

t.test('Expect: 100-continue gets an interim 100, then the answer', async (t) => {
  const { origin } = await startTestSandbox(t)
  const answer = await rawExchange(Number(new URL(origin).port), {
    method: 'POST',
    target: '/v1/pets',
    headers: [
      ['Authorization', AUTH.authorization],
      ['Content-Type', 'application/json'],
      ['Expect', '100-continue'],
    ],
    body: '{"name":"Patient","categoryId":3}',
  })
  t.equal(answer?.status, 201)
})

t.test('deeply nested JSON, alone or inside a valid NewPet, is answered and the server stays up', async (t) => {
  const { baseUrl, origin } = await startTestSandbox(t)
  const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)
  const cases: Array<[string, string, number]> = [
    ['arrays 15,000 deep in an ignored property', `{"name":"Deep","categoryId":1,"x":${nested(15_000)}}`, 201],
    [
      'objects 15,000 deep in an ignored property',
      `{"name":"Deeper","categoryId":1,"x":${'{"a":'.repeat(15_000)}1${'}'.repeat(15_000)}}`,
      201,
    ],
    ['arrays 200,000 deep as the body', nested(200_000), 400],
    ['an unclosed nesting 500,000 deep', '['.repeat(500_000), 400],
  ]
  for (const [what, body, status] of cases) {
    const res = await fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body,
    })
    t.equal(res.status, status, what)
    await res.arrayBuffer()
    // Anything that walks the request afterwards (logs, records) must survive it too.
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.equal((await fetch(`${origin}/healthz`)).status, 200, `healthy after ${what}`)
  }
})
