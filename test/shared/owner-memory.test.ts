// The owner of a namespace serves it from memory and commits behind, in batches: a read's answer
// does not wait for the database, creates that come together are stored by one transaction, and a
// batch that fails answers each of its requests, and of the batch after it, with what became of it.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { buildCli, spawnCli, waitFor } from '../support/sandbox.js'
import { ADMIN, API, KEY, TOKEN, call, replicaThroughProxy, replicaThroughRelay } from '../support/replicas.js'

const skip = postgresSkip(t)
const ns = (name: string) => ({ ...API, 'x-sandbox-namespace': name, 'content-type': 'application/json' })

t.test("a read is answered from the owner's memory while the commit of its entry is held back", { skip }, async (t) => {
  const db = await startPostgres(t)
  const { proxy, origin } = await replicaThroughProxy(t, db)
  t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('read') })).status, 200)
  const held = proxy.holdBack('INSERT INTO requests')
  // Bounded below the database's own timeout: an answer that waited for the commit comes after it.
  const answer = await fetch(`${origin}/v1/pets?limit=1`, { headers: ns('read'), signal: AbortSignal.timeout(2_000) })
  t.equal(answer.status, 200, 'answered at once')
  await held
  // The entry whose commit was held back is kept, and journaled once the database answers again.
  await waitFor(
    async () => {
      const rows = await db.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM requests WHERE namespace = 'read' AND record ->> 'status' = '200'",
      )
      return rows[0]?.n === '2'
    },
    { what: 'both reads in the journal the database keeps' },
  )
})

t.test(
  'the database keeps the journal the owner keeps: each batch drops exactly the entries that fell out',
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    const env = { DATABASE_URL: db.url, API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn', JOURNAL_SIZE: '10' }
    const origin = new URL((await spawnCli(t, env, [], await buildCli(t))).baseUrl).origin
    // One after another, so that the journal's bound moves in many batches.
    for (let i = 0; i < 35; i++)
      t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('bound') })).status, 200)
    await waitFor(
      async () => {
        const [kept] = await db.query<{ ids: string[] }>(
          "SELECT coalesce(array_agg(id::text ORDER BY id), '{}') AS ids FROM requests WHERE namespace = 'bound'",
        )
        return kept?.ids.join(' ') === Array.from({ length: 10 }, (_, i) => String(26 + i)).join(' ')
      },
      { what: 'the 10 latest entries, and no other, in the database' },
    )
  },
)

t.test('a batch of many reads writes only the entries its journal still keeps', { skip }, async (t) => {
  const db = await startPostgres(t)
  const { relay, origin } = await replicaThroughRelay(t, db, await buildCli(t), { JOURNAL_SIZE: '5' })
  // Every entry row ever inserted is counted, whatever a later statement deletes.
  await db.query(`CREATE TABLE inserted (id bigint);
    CREATE FUNCTION count_inserted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN INSERT INTO inserted VALUES (NEW.id); RETURN NULL; END $$;
    CREATE TRIGGER count_inserted AFTER INSERT ON requests FOR EACH ROW EXECUTE FUNCTION count_inserted()`)
  const read = () => call(`${origin}/v1/pets?limit=1`, { headers: ns('piled') })
  t.equal((await read()).status, 200)
  const held = relay.holdBack('INSERT INTO requests', () => undefined)
  t.equal((await read()).status, 200)
  await held
  // While one batch is held back, 200 reads pile into the next: it writes the 5 its journal keeps.
  const statuses: number[] = []
  for (let i = 0; i < 200; i++) statuses.push((await read()).status)
  t.same(new Set(statuses), new Set([200]), 'every read answered at once')
  relay.pass()
  const expected = Array.from({ length: 5 }, (_, i) => String(198 + i)).join(' ')
  await waitFor(
    async () => {
      const [kept] = await db.query<{ ids: string[] }>(
        "SELECT coalesce(array_agg(id::text ORDER BY id), '{}') AS ids FROM requests WHERE namespace = 'piled'",
      )
      return kept?.ids.join(' ') === expected
    },
    { what: 'the 5 latest entries in the database' },
  )
  const [{ n } = { n: '' }] = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM inserted')
  t.ok(Number(n) <= 12, `the batches inserted ${n} entries, not every read's`)
})

t.test('reads one after another share commits: a batch of reads gathers for 250 ms', { skip }, async (t) => {
  const db = await startPostgres(t)
  const env = { DATABASE_URL: db.url, API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn' }
  const origin = new URL((await spawnCli(t, env, [], await buildCli(t))).baseUrl).origin
  t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('gather') })).status, 200)
  const row = async () =>
    (
      await db.query<{ version: string; lastId: string }>(
        "SELECT version::text, state -> 'journal' ->> 'lastId' AS \"lastId\" FROM namespaces WHERE name = 'gather'",
      )
    )[0]
  await waitFor(async () => (await row())?.lastId === '1', { what: 'the first read in the database' })
  const first = Number((await row())?.version)
  const reads = 40
  const started = performance.now()
  for (let i = 0; i < reads; i++)
    t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('gather') })).status, 200)
  const elapsed = performance.now() - started
  // Each row's xmin is the transaction that wrote it.
  const journaled = async () =>
    (
      await db.query<{ entries: number; transactions: number }>(
        "SELECT count(*)::int AS entries, count(DISTINCT xmin::text)::int AS transactions FROM requests WHERE namespace = 'gather'",
      )
    )[0]
  await waitFor(async () => (await journaled())?.entries === reads + 1, { what: 'every read in the database' })
  const batches = (await journaled())?.transactions ?? Infinity
  // A batch flies at most once per 250 ms, and the first and last may stand apart.
  t.ok(batches <= Math.floor(elapsed / 250) + 2, `${reads} reads in ${Math.round(elapsed)} ms, ${batches} commits`)
  // A batch writes its last state only, and counts every read's change of it, as the owner's memory does.
  t.same(await row(), { version: String(first + reads), lastId: String(reads + 1) }, "the row: the last read's state")
})

t.test('creates that come together are stored by fewer transactions than creates', { skip }, async (t) => {
  const db = await startPostgres(t)
  const { origin } = await replicaThroughProxy(t, db)
  t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('group') })).status, 200)
  const creates = 40
  const answers = await Promise.all(
    Array.from({ length: creates }, (_, i) =>
      call(`${origin}/v1/pets`, { method: 'POST', headers: ns('group'), body: { name: `Group${i}`, categoryId: 1 } }),
    ),
  )
  t.same(
    answers.map((answer) => answer.status),
    answers.map(() => 201),
  )
  // Each row's xmin is the transaction that wrote it.
  const [stored] = await db.query<{ pets: number; transactions: number }>(
    "SELECT count(*)::int AS pets, count(DISTINCT xmin::text)::int AS transactions FROM pets WHERE namespace = 'group'",
  )
  t.equal(stored?.pets, creates, 'every create is stored')
  t.ok((stored?.transactions ?? creates) < creates / 2, `by ${stored?.transactions} transactions`)
})

t.test(
  'a batch whose COMMIT never arrives: each of its creates, and of the batch after it, is answered what became of it',
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    const { proxy, origin } = await replicaThroughProxy(t, db)
    t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('fail') })).status, 200)
    proxy.cutBefore('COMMIT')
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(`${origin}/v1/pets`, { method: 'POST', headers: ns('fail'), body: { name: `Fail${i}`, categoryId: 1 } }),
      ),
    )
    t.equal(proxy.cuts, 1, 'one connection was cut')
    const rows = await db.query<{ id: string; name: string }>(
      "SELECT id::text, pet ->> 'name' AS name FROM pets WHERE namespace = 'fail'",
    )
    const stored = new Map(rows.map((row) => [row.name, Number(row.id)]))
    t.equal(stored.size, rows.length, 'no pet stored twice')
    const refused = answers.filter((answer) => answer.status === 503)
    t.ok(refused.length > 0, 'the creates of the batch cut are refused')
    answers.forEach((answer, i) => {
      if (answer.status === 201) t.equal(answer.body.id, stored.get(`Fail${i}`), `Fail${i}: acknowledged and stored`)
      else {
        t.match(answer, { status: 503, body: { code: 'storage_unavailable', message: /nothing was changed/ } })
        t.ok(Number(answer.headers.get('retry-after')) > 0, `Fail${i}: refused with Retry-After`)
        t.notOk(stored.has(`Fail${i}`), `Fail${i}: refused and not stored`)
      }
    })
    // What the replica serves now is what the database holds, and its journal says each answer.
    const listed = await call(`${origin}/v1/pets?limit=100`, { headers: ns('fail') })
    t.same(
      (listed.body as { name: string }[])
        .map((pet) => pet.name)
        .filter((name) => name.startsWith('Fail'))
        .sort(),
      [...stored.keys()].sort(),
    )
    await waitFor(
      async () => {
        const journaled = await db.query<{ status: string }>(
          "SELECT record ->> 'status' AS status FROM requests WHERE namespace = 'fail' AND record ->> 'method' = 'POST'",
        )
        const statuses = journaled.map((row) => Number(row.status)).sort()
        return JSON.stringify(statuses) === JSON.stringify(answers.map((answer) => answer.status).sort())
      },
      { what: 'each create in the journal with its answer' },
    )
  },
)

t.test('a reset among creates: the batches that hold them store each pet once', { skip }, async (t) => {
  const db = await startPostgres(t)
  const { origin } = await replicaThroughProxy(t, db)
  t.equal((await call(`${origin}/v1/pets?limit=1`, { headers: ns('reset') })).status, 200)
  const create = (name: string) =>
    call(`${origin}/v1/pets`, { method: 'POST', headers: ns('reset'), body: { name, categoryId: 1 } })
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => create(`Before${round}-${i}`)),
      call(`${origin}/__admin/reset?namespace=reset`, { method: 'POST', headers: ADMIN }),
      ...Array.from({ length: 5 }, (_, i) => create(`After${round}-${i}`)),
    ])
    t.same(
      answers.map((answer) => answer.status),
      [201, 201, 201, 201, 201, 200, 201, 201, 201, 201, 201],
      `round ${round}`,
    )
  }
  // What the replica serves is what the database holds: the creates after the last reset, once each.
  const rows = await db.query<{ name: string }>("SELECT pet ->> 'name' AS name FROM pets WHERE namespace = 'reset'")
  const stored = rows.map((row) => row.name).sort()
  t.equal(new Set(stored).size, stored.length, 'no pet stored twice')
  const listed = await call(`${origin}/v1/pets?limit=100`, { headers: ns('reset') })
  t.same(
    (listed.body as { name: string }[])
      .map((pet) => pet.name)
      .filter((name) => /^(Before|After)/.test(name))
      .sort(),
    stored,
  )
})

t.test(
  'an entry whose id the database already holds is refused with its create, never dropped',
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    const env = { DATABASE_URL: db.url, API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn' }
    const origin = new URL((await spawnCli(t, env, [], await buildCli(t))).baseUrl).origin
    const create = (name: string) =>
      call(`${origin}/v1/pets`, { method: 'POST', headers: ns('given'), body: { name, categoryId: 1 } })
    t.equal((await create('first')).status, 201)
    // Another writer gave the next id (a replica that wrote without the lease): the owner's memory is behind.
    await db.query(`INSERT INTO requests (namespace, id, record)
      SELECT namespace, id + 1, jsonb_set(record, '{path}', '"/v1/given-elsewhere"') FROM requests WHERE namespace = 'given';
    UPDATE namespaces SET version = version + 1,
      state = jsonb_set(state, '{journal,lastId}', (SELECT to_jsonb(max(id)) FROM requests WHERE namespace = 'given'))
      WHERE name = 'given'`)
    const answers = [await create('second')]
    // Refused, nothing was changed: sent again as Retry-After invites, it is stored once.
    if (answers[0]?.status === 503) answers.push(await create('second'))
    t.same(
      answers.map((a) => a.status),
      [503, 201],
    )
    const journaled = await db.query<{ path: string; status: string }>(
      "SELECT record ->> 'path' AS path, record ->> 'status' AS status FROM requests WHERE namespace = 'given' ORDER BY id",
    )
    t.same(
      journaled.map((row) => `${row.status} ${row.path}`),
      ['201 /v1/pets', '201 /v1/given-elsewhere', '503 /v1/pets', '201 /v1/pets'],
      "every answer in the journal the database keeps, and the other writer's entry",
    )
    const [pets] = await db.query<{ n: string }>("SELECT count(*)::text AS n FROM pets WHERE pet ->> 'name' = 'second'")
    t.equal(pets?.n, '1', 'the refused create stored nothing')
  },
)
