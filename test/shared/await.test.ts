// A wait on one replica sees the calls another replica journaled in the database they share.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { buildCli, spawnCli } from '../support/sandbox.js'
import { ADMIN, API, KEY, TOKEN, call, replicaUrl } from '../support/replicas.js'

const skip = postgresSkip(t)

t.test('a wait on one replica ends on a call another replica served', { skip }, async (t) => {
  const db = await startPostgres(t)
  const cli = await buildCli(t)
  const [one, two] = await Promise.all(
    [1, 2].map(async (n) => {
      const env = { DATABASE_URL: replicaUrl(db, n), API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn' }
      return new URL((await spawnCli(t, env, [], cli)).baseUrl).origin
    }),
  )
  const control = (origin: string | undefined, path: string, body?: unknown, method = 'POST') =>
    call(`${origin}/__admin${path}`, { method, headers: ADMIN, body })
  t.equal((await control(one, '/reset?namespace=across', {})).status, 200)

  const waiting = control(one, '/requests/await?namespace=across', {
    timeoutMs: 20_000,
    expectations: [{ operationId: 'createPet', count: 1, body: { name: 'Rex' } }],
  })
  const created = await call(`${two}/v1/pets`, {
    method: 'POST',
    headers: { ...API, 'content-type': 'application/json', 'x-sandbox-namespace': 'across' },
    body: { name: 'Rex', categoryId: 1 },
  })
  t.equal(created.status, 201)
  const answered = Date.now()
  const { status, body } = await waiting
  t.equal(status, 200)
  t.match(body, { passed: true, endedBy: 'met' })
  t.equal(body.expectations[0].matched, 1)
  t.ok(Date.now() - answered < 2000, `seen ${Date.now() - answered} ms after the other replica answered`)

  const deleted = control(one, '/requests/await?namespace=across', { timeoutMs: 20_000, quietMs: 20_000 })
  // Deleted through the other replica: a 404 whether the wait had begun (seen at its next read) or not.
  t.equal((await control(two, '/namespaces/across', undefined, 'DELETE')).status, 200)
  const gone = await deleted
  t.equal(gone.status, 404)
  t.match(gone.body, { code: 'not_found' })
})
