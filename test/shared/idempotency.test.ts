// Idempotency-Key on replicas sharing PostgreSQL: a retry through another replica answers the
// first create, and a create whose connection is cut as it commits is stored once whatever the
// retry finds (the key is written in the pet's own transaction).
import t from 'tap'
import { postgresSkip, startPostgres, type Postgres } from '../support/postgres.js'
import { haproxySkip } from '../support/haproxy.js'
import { buildCli } from '../support/sandbox.js'
import { API, call, startReplicas, replicaThroughProxy } from '../support/replicas.js'

const skip = postgresSkip(t) || haproxySkip(t)
const keyed = (namespace: string, key: string) => ({
  ...API,
  'x-sandbox-namespace': namespace,
  'content-type': 'application/json',
  'idempotency-key': key,
})

async function stored(db: Postgres, namespace: string, name: string): Promise<number[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM pets WHERE namespace = '${namespace}' AND pet ->> 'name' = '${name}' ORDER BY id`,
  )
  return rows.map((row) => Number(row.id))
}

t.test('a retry through another replica answers the first pet; another body is refused', { skip }, async (t) => {
  const db = await startPostgres(t)
  const { origins } = await startReplicas(t, db, await buildCli(t), 2)
  const [a, b] = origins as [string, string]
  const body = { name: 'Shared', categoryId: 2 }
  const first = await call(`${a}/v1/pets`, { method: 'POST', headers: keyed('idem', 'k1'), body })
  t.equal(first.status, 201)
  const retry = await call(`${b}/v1/pets`, { method: 'POST', headers: keyed('idem', 'k1'), body })
  t.equal(retry.status, 201, 'the other replica answers 201')
  t.same(retry.body, first.body, 'with the first pet')
  t.equal(retry.headers.get('location'), first.headers.get('location'))
  t.equal(retry.headers.get('idempotent-replayed'), 'true')
  const other = await call(`${b}/v1/pets`, {
    method: 'POST',
    headers: keyed('idem', 'k1'),
    body: { name: 'Shared', categoryId: 3 },
  })
  t.equal(other.status, 400)
  t.match(other.body, { code: 'idempotency_key_reused', status: 400 })
  t.same(await stored(db, 'idem', 'Shared'), [first.body.id], 'one pet is stored')
  const elsewhere = await call(`${b}/v1/pets`, { method: 'POST', headers: keyed('other', 'k1'), body })
  t.equal(elsewhere.headers.get('idempotent-replayed'), null, 'keys are per namespace')
})

t.test('a create cut as it commits is stored once, whether its COMMIT arrived or not', { skip }, async (t) => {
  const db = await startPostgres(t)
  const { proxy, origin } = await replicaThroughProxy(t, db)
  const create = (name: string, key: string) =>
    call(`${origin}/v1/pets`, { method: 'POST', headers: keyed('cut', key), body: { name, categoryId: 1 } })
  t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: keyed('cut', 'none') })).status, 200)

  // The COMMIT reaches the database; its answer never comes back.
  proxy.cutAfter('COMMIT')
  const committed = await create('Committed', 'after')
  t.equal(proxy.cuts, 1)
  t.ok([201, 503].includes(committed.status), `answered 201 or the 503 of an unknown outcome: ${committed.status}`)
  const [id] = await stored(db, 'cut', 'Committed')
  const retried = await create('Committed', 'after')
  t.equal(retried.status, 201)
  t.equal(retried.body.id, id, 'the retry finds the committed pet')
  t.equal(retried.headers.get('idempotent-replayed'), 'true')
  t.same(await stored(db, 'cut', 'Committed'), [id], 'stored once')

  // The COMMIT never reaches the database: nothing was stored, the retry creates it.
  proxy.cutBefore('COMMIT')
  const lost = await create('Lost', 'before')
  t.equal(proxy.cuts, 2)
  t.equal(lost.status, 503)
  t.same(await stored(db, 'cut', 'Lost'), [], 'nothing stored')
  const again = await create('Lost', 'before')
  t.equal(again.status, 201, 'the retry creates it')
  t.equal(again.headers.get('idempotent-replayed'), null)
  t.same(await stored(db, 'cut', 'Lost'), [again.body.id], 'once')
})
