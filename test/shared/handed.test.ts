// An entry a replica hands to a namespace's owner (it answered while it could not reach the
// database) reaches the owner's journal though nothing but control calls come after: the owner
// takes handed entries on its own, not only with the batch of its next change. And it reaches it
// once, whatever befalls the owner between reading the entry and journaling it.
import t from 'tap'
import type { Test } from 'tap'
import { postgresSkip, startPostgres, type Postgres } from '../support/postgres.js'
import { buildCli, waitFor } from '../support/sandbox.js'
import { ADMIN, API, call, replicaThroughProxy, replicaThroughRelay, startReplicas } from '../support/replicas.js'

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

/** An entry another replica handed to namespace `name`'s owner: a copy of its journaled read, at `path`. */
async function handTo(db: Postgres, name: string, path: string): Promise<void> {
  await db.query(
    `INSERT INTO handed_entries (namespace, record)
     SELECT namespace, jsonb_set(record, '{path}', to_jsonb($2::text)) FROM requests WHERE namespace = $1 LIMIT 1`,
    [name, path],
  )
}

/** An owner (through a proxy that cuts) of namespace `name`, whose first read is in the journal the database keeps. */
async function ownerOf(t: Test, db: Postgres, name: string): Promise<Awaited<ReturnType<typeof replicaThroughProxy>>> {
  const owner = await replicaThroughProxy(t, db)
  t.equal(
    (await call(`${owner.origin}/v1/pets?limit=1`, { headers: { ...API, 'x-sandbox-namespace': name } })).status,
    200,
  )
  await waitFor(async () => (await db.query('SELECT 1 FROM requests WHERE namespace = $1', [name])).length === 1, {
    what: 'the read in the journal the database keeps',
  })
  return owner
}

/** Waits for the entry handed at /v1/handed-here in the journal the database keeps: there once, its row gone. */
async function journaledOnce(t: Test, db: Postgres, timeoutMs: number): Promise<void> {
  const journaled = async (): Promise<number> =>
    (await db.query("SELECT 1 FROM requests WHERE record ->> 'path' = '/v1/handed-here'")).length
  await waitFor(async () => (await journaled()) > 0, {
    what: 'the handed entry in the journal the database keeps',
    timeoutMs,
  })
  t.equal(await journaled(), 1, 'once')
  t.equal((await db.query('SELECT 1 FROM handed_entries')).length, 0, 'and no longer waiting to be taken')
}

t.test(
  'an entry handed to the owner is journaled though the answer to its taking was cut',
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const { proxy } = await ownerOf(t, db, 'cut-take')
    // The owner's periodic taking reaches the database; the owner never hears what it took.
    proxy.cutAfter('handed_entries WHERE namespace = ANY')
    await handTo(db, 'cut-take', '/v1/handed-here')
    await waitFor(async () => proxy.cuts === 1, { what: 'the taking to be cut' })
    await journaledOnce(t, db, 10_000)
  },
)

t.test(
  'an entry handed to the owner and taken by a batch whose commit outcome stays unknown is journaled once',
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const { proxy, origin } = await ownerOf(t, db, 'doubted-take')
    // Only the create's batch takes the entry: the owner's periodic taking waits for an answer that never comes.
    const taking = proxy.holdBack('handed_entries WHERE namespace = ANY')
    await taking
    await handTo(db, 'doubted-take', '/v1/handed-here')
    // The batch reaches the database whole; the owner hears nothing of it, nor whether it took.
    proxy.cutAfter('COMMIT')
    const doubted = proxy.holdBack('txid_status')
    const created = await call(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { ...API, 'x-sandbox-namespace': 'doubted-take', 'content-type': 'application/json' },
      body: { name: 'InDoubt', categoryId: 1 },
    })
    t.equal(created.status, 503, 'the create is answered that its outcome is unknown')
    await doubted
    await journaledOnce(t, db, 15_000)
  },
)

t.test(
  'an entry handed to an owner killed before it journaled it is journaled by the next owner',
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const cli = await buildCli(t)
    const { relay, replica, origin: a } = await replicaThroughRelay(t, db, cli)
    const {
      origins: [b],
    } = await startReplicas(t, db, cli, 1)
    const headers = { ...API, 'x-sandbox-namespace': 'killed-owner' }
    t.equal((await call(`${a}/v1/pets?limit=1`, { headers })).status, 200, 'replica A owns the namespace')
    await waitFor(
      async () => (await db.query("SELECT 1 FROM requests WHERE namespace = 'killed-owner'")).length === 1,
      {
        what: 'the read in the journal the database keeps',
      },
    )
    // A reads the handed entry, and is killed as its commit that would journal it reaches the relay.
    const killed = relay.holdBack('INSERT INTO requests', () => replica.child.kill('SIGKILL'))
    await handTo(db, 'killed-owner', '/v1/handed-here')
    await killed
    await replica.exited
    await waitFor(
      async () => (await db.query("SELECT 1 FROM leases WHERE name = 'killed-owner' AND expires < now()")).length === 1,
      { what: "A's lease to run out" },
    )
    t.equal((await call(`${b}/v1/pets?limit=1`, { headers })).status, 200, 'replica B serves the namespace')
    await journaledOnce(t, db, 10_000)
  },
)

t.test(
  "a handed record of calls counted only joins the owner's counts once, though the commit that would take it failed",
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const { proxy, origin } = await ownerOf(t, db, 'counted')
    // What a replica hands when it answered more than it could keep while the database was away.
    const answers = [
      ['503 storage_unavailable false', { status: 503, code: 'storage_unavailable', forced: false, calls: 3 }],
    ]
    const dropped = {
      ...{ calls: 3, unmatchedCalls: 0, invalidCalls: 0, journalDropped: 3, invalid: [], unmatched: [] },
      operations: [['listPets', { calls: 3, answers, parameters: [] }]],
    }
    const record = {
      ...{ time: 0, namespace: 'counted', method: '', path: '', search: '', headers: {}, body: null, status: null },
      ...{ durationMs: 0, operationId: 'unmatched', fault: null, authenticated: true, dropped },
    }
    // The owner's first commit that would take the record never reaches the database.
    proxy.cutBefore('DELETE FROM handed_entries')
    await db.query("INSERT INTO handed_entries (namespace, record) VALUES ('counted', $1)", [JSON.stringify(record)])
    await waitFor(async () => proxy.cuts === 1, { what: 'the commit to be cut' })
    await waitFor(async () => (await db.query('SELECT 1 FROM handed_entries')).length === 0, {
      what: 'the record taken by a later commit',
      timeoutMs: 10_000,
    })
    const verified = await call(`${origin}/__admin/verify?namespace=counted`, {
      method: 'POST',
      headers: ADMIN,
      body: { expectations: [{ operationId: 'listPets', count: 4 }] },
    })
    t.equal(verified.body.passed, true, `the read and the 3 calls counted, once: ${verified.body.message}`)
  },
)

t.test(
  'the entries handed to a namespace go with it when it is deleted or expires',
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const {
      origins: [owner],
      processes: [replica],
    } = await startReplicas(t, db, await buildCli(t), 1)
    t.equal(
      (await call(`${owner}/v1/pets?limit=1`, { headers: { ...API, 'x-sandbox-namespace': 'deleted' } })).status,
      200,
    )
    await waitFor(async () => (await db.query("SELECT 1 FROM requests WHERE namespace = 'deleted'")).length === 1, {
      what: 'the read in the journal the database keeps',
    })
    // No owner takes the entry: it is handed, and the namespace deleted (as expiry does) before it is journaled.
    replica?.child.kill('SIGKILL')
    await replica?.exited
    await handTo(db, 'deleted', '/v1/handed-here')
    t.equal((await db.query('SELECT 1 FROM handed_entries')).length, 1, 'handed')
    await db.query("DELETE FROM namespaces WHERE name = 'deleted'")
    t.equal((await db.query('SELECT 1 FROM handed_entries')).length, 0, 'no entry is left for nobody to take')
  },
)

const inNamespace = (name: string) => ({ headers: { ...API, 'x-sandbox-namespace': name } })

/** An owner that made namespaces `names` (a read in each), and replica A, reaching the database through a relay the test cuts. */
async function ownerAndCutReplica(t: Test, names: readonly string[]) {
  const db = await startPostgres(t)
  const cli = await buildCli(t)
  const {
    origins: [owner = ''],
  } = await startReplicas(t, db, cli, 1)
  const { relay, origin: a } = await replicaThroughRelay(t, db, cli)
  for (const name of names) t.equal((await call(`${owner}/v1/pets`, inNamespace(name))).status, 200)
  return { db, owner, relay, a }
}

t.test(
  'an entry kept while the database was away goes with the namespace deleted after it was answered, and only then',
  { skip: postgresSkip(t) },
  async (t) => {
    const names = ['deleted-meanwhile', 'made-again', 'asked-after', 'kept']
    const { db, owner, relay, a } = await ownerAndCutReplica(t, names)
    const deleteAtOwner = async (name: string): Promise<void> => {
      const deleted = await call(`${owner}/__admin/namespaces/${name}`, { method: 'DELETE', headers: ADMIN })
      t.equal(deleted.status, 200, `the owner deletes ${name}`)
    }

    // Replica A answers in each while it cannot reach the database, and keeps their entries. One
    // namespace was deleted before A was asked in it; two are deleted after, one of them made again.
    relay.cut(true)
    await deleteAtOwner('asked-after')
    for (const name of names) t.equal((await call(`${a}/v1/pets`, inNamespace(name))).status, 503)
    await deleteAtOwner('deleted-meanwhile')
    await deleteAtOwner('made-again')
    t.equal((await call(`${owner}/v1/pets`, inNamespace('made-again'))).status, 200, 'made again')
    relay.cut(false)
    // A writes what it kept one namespace after the other, in the order it answered: the last
    // one's entry comes after the others'.
    const answered503 = async (name: string): Promise<number> =>
      (await db.query("SELECT 1 FROM requests WHERE namespace = $1 AND (record ->> 'status')::int = 503", [name]))
        .length + (await db.query('SELECT 1 FROM handed_entries WHERE namespace = $1', [name])).length
    await waitFor(async () => (await answered503('kept')) > 0, { what: "A's entry in the last", timeoutMs: 10_000 })
    t.same(await db.query("SELECT 1 FROM namespaces WHERE name = 'deleted-meanwhile'"), [], 'not made again')
    t.equal(await answered503('made-again'), 0, "the namespace made again has none of the deleted one's calls")
    t.equal(await answered503('asked-after'), 1, 'a call after the deletion makes the namespace again, as any call')
  },
)

t.test(
  'an entry kept while the database was away goes with the journal a reset cleared after it was answered, and only then',
  { skip: postgresSkip(t) },
  async (t) => {
    const names = ['reset-after', 'reset-before', 'kept']
    const { db, owner, relay, a } = await ownerAndCutReplica(t, names)
    const resetAtOwner = async (name: string): Promise<void> => {
      const reset = await call(`${owner}/__admin/reset?namespace=${name}`, { method: 'POST', headers: ADMIN })
      t.equal(reset.status, 200, `the owner resets ${name}`)
    }

    // Replica A answers in each while it cannot reach the database, and hands their entries to the
    // owner once it can. One namespace was reset before A was asked in it, one after.
    relay.cut(true)
    await resetAtOwner('reset-before')
    for (const name of names) t.equal((await call(`${a}/v1/pets`, inNamespace(name))).status, 503)
    await resetAtOwner('reset-after')
    relay.cut(false)
    const journaled503 = async (name: string): Promise<number> =>
      (await db.query("SELECT 1 FROM requests WHERE namespace = $1 AND (record ->> 'status')::int = 503", [name]))
        .length
    await waitFor(
      async () => (await journaled503('kept')) > 0 && (await db.query('SELECT 1 FROM handed_entries')).length === 0,
      { what: 'every handed entry taken by the owner', timeoutMs: 15_000 },
    )
    t.equal(await journaled503('reset-after'), 0, 'the reset after it cleared it')
    t.equal(await journaled503('reset-before'), 1, 'one answered after the reset is journaled')
    const verified = await call(`${owner}/__admin/verify?namespace=reset-after`, {
      method: 'POST',
      headers: ADMIN,
      body: { expectations: [{ operationId: 'listPets', count: 0 }] },
    })
    t.equal(verified.body.passed, true, `verify counts no call since the reset: ${verified.body.message}`)
  },
)
