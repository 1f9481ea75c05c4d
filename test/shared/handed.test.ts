// An entry a replica hands to a namespace's owner (it answered while it could not reach the
// database) reaches the owner's journal though nothing but control calls come after: the owner
// takes handed entries on its own, not only with the batch of its next change.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { buildCli, waitFor } from '../support/sandbox.js'
import { ADMIN, API, call, replicaThroughRelay, startReplicas } from '../support/replicas.js'

const ns = { ...API, 'x-sandbox-namespace': 'handed' }

t.test(
  'an entry handed to the owner is in its journal with no request after it',
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const cli = await buildCli(t)
    const {
      origins: [owner],
    } = await startReplicas(t, db, cli, 1)
    // Replica A reaches the database through a relay this test cuts.
    const { relay, origin: a } = await replicaThroughRelay(t, db, cli)
    t.equal((await call(`${owner}/v1/pets?limit=1`, { headers: ns })).status, 200, 'the owner made the namespace')
    const leaseOwner = async () =>
      (await db.query<{ address: string }>("SELECT address FROM leases WHERE name = 'handed'"))[0]?.address

    relay.cut(true)
    const refused = await call(`${a}/v1/pets?limit=2`, { headers: ns })
    t.equal(refused.status, 503, 'a replica that cannot reach the database answers 503')
    relay.cut(false)
    // Replica A hands its entry to the owner once it reaches the database again (within a second).
    await waitFor(async () => (await db.query('SELECT 1 FROM handed_entries')).length > 0 || (await inJournal()) > 0, {
      what: 'replica A to hand its entry',
    })
    async function inJournal(): Promise<number> {
      const page = await call(`${owner}/__admin/requests?namespace=handed&limit=100`, { headers: ADMIN })
      return page.body.entries.filter((entry: { status: number }) => entry.status === 503).length
    }
    await waitFor(async () => (await inJournal()) > 0, {
      what: "the handed 503 in the owner's journal",
      timeoutMs: 10_000,
    })
    t.equal(await inJournal(), 1, 'once')
    t.equal(await leaseOwner(), owner, 'the owner kept the namespace: the entry came to it handed')
    const verified = await call(`${a}/__admin/verify?namespace=handed`, {
      method: 'POST',
      headers: ADMIN,
      body: { expectations: [{ operationId: 'listPets', count: 2 }] },
    })
    t.equal(verified.body.passed, true, `verify through replica A counts it: ${verified.body.message}`)
  },
)
