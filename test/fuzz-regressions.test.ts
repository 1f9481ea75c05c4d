// Cases the fuzzer found, kept as regular tests. (Number rounding: see numbers.test.ts.)
import t from 'tap'
import { AUTH, startTestSandbox } from './helpers.js'
import { rawExchange } from './raw-http.js'

t.test('paths are case-sensitive: /V1/PETS is not /v1/pets', async (t) => {
  const { baseUrl, origin } = await startTestSandbox(t)
  for (const path of ['/V1/PETS', '/v1/Pets', '/V1/pets/1', '/v1/STORE/orders']) {
    const res = await fetch(origin + path, { headers: AUTH })
    t.equal(res.status, 404, `${path} → 404`)
    t.match(await res.json(), { code: 'not_found', status: 404 })
  }
  t.equal((await fetch(`${baseUrl}/pets/1`, { headers: AUTH })).status, 200, 'the exact path is still served')
})

t.test('Expect: 100-continue gets an interim 100, then the answer', async (t) => {
  const { origin } = await startTestSandbox(t)
  const answer = await rawExchange(Number(new URL(origin).port), {
    method: 'POST',
    target: '/v1/pets',
    headers: [['Authorization', AUTH.authorization], ['Content-Type', 'application/json'], ['Expect', '100-continue']],
    body: '{"name":"Patient","categoryId":3}',
  })
  t.equal(answer?.status, 201)
})
