// Promises a shared sandbox once broke with no fault injected, each kept here on real replica
// processes and a real PostgreSQL, each test failing without the change that keeps it.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { haproxySkip } from '../support/haproxy.js'
import { buildCli } from '../support/sandbox.js'
import { ADMIN, API, call, startReplicas } from '../support/replicas.js'

const skip = postgresSkip(t) || haproxySkip(t)
const ns = (name: string) => ({ ...API, 'x-sandbox-namespace': name, 'content-type': 'application/json' })

t.test('a reset whose snapshot lookup fails lets the namespace go, on every replica', { skip }, async (t) => {
  const db = await startPostgres(t)
  const { origins } = await startReplicas(t, db, await buildCli(t), 2)
  const [a, b] = origins as [string, string]
  t.equal((await call(`${a}/v1/pets?limit=1`, { headers: ns('stuck') })).status, 200)
  // A snapshot the sandbox cannot read: its lookup fails after the namespace was held.
  await db.query(
    `INSERT INTO snapshots (name, namespace, pets, clock) VALUES ('broken', 'stuck', '[{"id":"x"}]', NULL)`,
  )
  const reset = await call(`${a}/__admin/reset?namespace=stuck`, {
    method: 'POST',
    headers: ADMIN,
    body: { snapshot: 'broken' },
  })
  t.equal(reset.status, 500, 'the reset fails')
  t.match(reset.body, { code: String, message: String })
  for (const origin of [a, b])
    t.equal(
      (await call(`${origin}/v1/pets?limit=1`, { headers: ns('stuck') })).status,
      200,
      `${origin} serves the namespace`,
    )
  const open = await db.query("SELECT pid FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'")
  t.same(open, [], 'no transaction is left open')
})
