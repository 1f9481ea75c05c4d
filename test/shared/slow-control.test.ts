// A database slow at two steps of a control call, each within its own bound: the call is still
// answered within 5 s, as an API request is, on real replica processes and a real PostgreSQL, each
// test failing without the change that keeps it.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { haproxySkip } from '../support/haproxy.js'
import { buildCli, waitFor } from '../support/sandbox.js'
import { call, startReplicas, replicaThroughProxy } from '../support/replicas.js'
import { ns, ownerThroughProxy, refusedInTime, slowSteps, timedControl } from '../support/slow-database.js'

const skip = postgresSkip(t) || haproxySkip(t)

// A control call finds the namespace it names, and reads the named snapshots, before its hold or
// its write: each slow step, within its own bound, leaves the next less time, never more. Calls
// that name no namespace in their query or path are served by the default namespace's owner.
const TAKE = { name: 'new', namespace: 'elsewhere' }
for (const [what, method, path, body, steps] of [
  [
    'a snapshot taken, reading the snapshots and finding its namespace',
    'POST',
    '/snapshots',
    TAKE,
    ['FROM snapshots ORDER BY', 'SELECT 1 FROM namespaces'],
  ],
  [
    'a snapshot taken, finding its namespace and holding it',
    'POST',
    '/snapshots',
    TAKE,
    ['SELECT 1 FROM namespaces', 'COMMIT'],
  ],
  [
    'a snapshot taken, finding its namespace and writing',
    'POST',
    '/snapshots',
    TAKE,
    ['SELECT 1 FROM namespaces', 'INSERT INTO snapshots'],
  ],
  [
    'the snapshots listed, reading them and what starts from them',
    'GET',
    '/snapshots',
    undefined,
    ['FROM snapshots ORDER BY', "state -> 'base'"],
  ],
  [
    'a snapshot deleted, reading the snapshots and locking its own',
    'DELETE',
    '/snapshots/kept',
    undefined,
    ['FROM snapshots ORDER BY', 'FOR UPDATE'],
  ],
  [
    'a test ended, finding its namespace and holding it',
    'POST',
    '/namespaces/elsewhere/end',
    undefined,
    ['SELECT 1 FROM namespaces', 'COMMIT'],
  ],
] as const)
  t.test(`${what}, slowly on a replica that does not own it, is answered within 5 s`, { skip }, async (t) => {
    const db = await startPostgres(t)
    // Started first, the replica asked owns the default namespace, so it serves these calls itself.
    const { proxy, origin } = await replicaThroughProxy(t, db)
    const {
      origins: [owner],
    } = await startReplicas(t, db, await buildCli(t), 1)
    t.equal((await call(`${owner!}/v1/pets?limit=1`, { headers: ns('elsewhere') })).status, 200, 'the owner')
    const kept = { name: 'kept', namespace: 'elsewhere' }
    t.equal((await timedControl(origin, 'POST', '/snapshots', kept)).status, 201)
    slowSteps(proxy, steps[0], steps[1])
    refusedInTime(t, await timedControl(origin, method, path, body))
  })

t.test(
  'a reset to a snapshot, its namespace locked slowly and the snapshots read slowly, is answered within 5 s',
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    const { proxy, origin } = await replicaThroughProxy(t, db)
    const {
      origins: [other],
      processes: [gone],
    } = await startReplicas(t, db, await buildCli(t), 1)
    t.equal((await call(`${other!}/v1/pets?limit=1`, { headers: ns('orphan') })).status, 200, 'its owner')
    const kept = { name: 'kept', namespace: 'orphan' }
    t.equal((await timedControl(other!, 'POST', '/snapshots', kept)).status, 201)
    // Its owner dies: once its lease lapses, the replica asked takes the namespace, locking its row.
    gone!.child.kill('SIGKILL')
    await waitFor(
      async () => (await db.query("SELECT 1 FROM leases WHERE name = 'orphan' AND expires > now()")).length === 0,
      {
        what: "the dead owner's lease lapsed",
      },
    )
    slowSteps(proxy, 'FOR UPDATE', 'FROM snapshots ORDER BY')
    refusedInTime(t, await timedControl(origin, 'POST', '/reset?namespace=orphan', { snapshot: 'kept' }))
  },
)

t.test(
  "a namespace deleted by its owner, the default namespace's found slowly and the row deleted slowly, is answered within 5 s",
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    // Started first, the other replica owns the default namespace, which every control call finds first.
    await startReplicas(t, db, await buildCli(t), 1)
    const { proxy, origin } = await ownerThroughProxy(t, db, 'doomed')
    slowSteps(proxy, 'SELECT 1 FROM namespaces', 'DELETE FROM namespaces')
    const answer = await timedControl(origin, 'DELETE', '/namespaces/doomed')
    refusedInTime(t, answer)
    t.match(answer.body, { message: /nothing was changed/ })
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    t.equal((await db.query("SELECT 1 FROM namespaces WHERE name = 'doomed'")).length, 1, 'and it was not deleted')
  },
)
