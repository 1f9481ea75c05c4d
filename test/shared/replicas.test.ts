// Three replicas on one PostgreSQL database behind HAProxy: interchangeable, whichever serves a
// call. Faults, resets, clocks, snapshots and namespaces made through one are seen by all; an
// nth-call fault fires once; the journal, verify and coverage count every call exactly.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { haproxySkip } from '../support/haproxy.js'
import pg from 'pg'
import { buildCli, waitFor } from '../support/sandbox.js'
import { ADMIN, API, call, startReplicas } from '../support/replicas.js'

const skip = postgresSkip(t) || haproxySkip(t)

t.test('replicas on one database', { skip }, async (t) => {
  const db = await startPostgres(t)
  const cli = await buildCli(t)
  const { origins, url, balancer } = await startReplicas(t, db, cli)
  const ns = (name: string) => ({ ...API, 'x-sandbox-namespace': name })
  const control = (origin: string, path: string, namespace: string, method = 'GET', body?: unknown) =>
    call(`${origin}/__admin/${path}${path.includes('?') ? '&' : '?'}namespace=${namespace}`, {
      method,
      headers: ADMIN,
      body,
    })

  t.test('calls spread over the replicas, and creates under load get unique ids every replica serves', async (t) => {
    const served = new Set<string | undefined>()
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${url}/v1/pets?limit=1`, { headers: ns('load') })
      served.add(balancer.servedBy(res))
      await res.arrayBuffer()
    }
    t.same([...served].sort(), [...origins].sort(), 'each replica answered')
    const created = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        call(`${url}/v1/pets`, {
          method: 'POST',
          headers: { ...ns('load'), 'content-type': 'application/json' },
          body: { name: `P${i}`, categoryId: 1 },
        }),
      ),
    )
    t.same(
      created.map((r) => r.status),
      created.map(() => 201),
      'every create acknowledged',
    )
    const ids = created.map((r) => r.body.id as number)
    t.equal(new Set(ids).size, ids.length, 'no two creates got one id')
    for (const origin of origins) {
      const found = await Promise.all(ids.map((id) => call(`${origin}/v1/pets/${id}`, { headers: ns('load') })))
      t.ok(
        found.every((r, i) => r.status === 200 && r.body.id === ids[i]),
        `${origin} serves every created pet`,
      )
    }
    const stored = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pets WHERE namespace = 'load'")
    t.same(stored, [{ n: 120 }], 'the database holds each created pet once')
  })

  /** Creates in `namespace` through the balancer while `work` runs; how many were acknowledged. */
  const underCreateLoad = async (namespace: string, work: () => Promise<void>): Promise<number> => {
    let stop = false
    let acknowledged = 0
    const client = async (): Promise<void> => {
      for (let i = 0; !stop && i < 2_000; i++) {
        const res = await call(`${url}/v1/pets`, {
          method: 'POST',
          headers: { ...ns(namespace), 'content-type': 'application/json' },
          body: { name: 'L', categoryId: 1 },
        })
        if (res.status === 201) acknowledged++
      }
    }
    const clients = [client(), client(), client(), client()]
    await work()
    stop = true
    await Promise.all(clients)
    return acknowledged
  }

  t.test('a fault armed through one replica fires once, on the nth call, under a create load', async (t) => {
    const armed = await control(origins[0]!, 'faults', 'nth', 'POST', {
      operationId: 'listPets',
      status: 503,
      after: 7,
      times: 1,
    })
    t.equal(armed.status, 201)
    let answers: { status: number }[] = []
    const created = await underCreateLoad('nth', async () => {
      answers = await Promise.all(
        Array.from({ length: 20 }, () => call(`${url}/v1/pets?limit=1`, { headers: ns('nth') })),
      )
    })
    t.equal(answers.filter((a) => a.status === 503).length, 1, 'one call got the fault')
    t.equal(answers.filter((a) => a.status === 200).length, 19)
    const journal = await control(origins[2]!, 'requests?operationId=listPets&limit=100', 'nth')
    const faulted = journal.body.entries.filter((e: { status: number }) => e.status === 503)
    t.equal(faulted.length, 1)
    t.equal(journal.body.entries.indexOf(faulted[0]), 7, 'the eighth listPets recorded is the faulted one')
    const faults = await control(origins[1]!, 'faults', 'nth')
    t.match(faults.body.faults, [{ seen: 20, fired: 1 }])
    const verified = await control(origins[0]!, 'verify', 'nth', 'POST', {
      expectations: [{ operationId: 'createPet', count: created }],
    })
    t.equal(verified.body.passed, true, `every acknowledged create counted: ${verified.body.message}`)
  })

  t.test(
    'verify, the journal and coverage count every call, whichever replica is asked, under a create load',
    async (t) => {
      let calls: { status: number }[] = []
      const created = await underCreateLoad('exact', async () => {
        calls = await Promise.all(
          Array.from({ length: 45 }, (_, i) => call(`${url}/v1/pets/${(i % 5) + 1}`, { headers: ns('exact') })),
        )
      })
      t.ok(calls.every((c) => c.status === 200))
      for (const origin of origins) {
        const expectations = [
          { operationId: 'getPet', count: 45 },
          { operationId: 'createPet', count: created },
        ]
        const verified = await control(origin, 'verify', 'exact', 'POST', { expectations })
        t.equal(verified.body.passed, true, `${origin}: ${verified.body.message}`)
        const page = await control(origin, 'requests?limit=1&operationId=getPet', 'exact')
        t.equal(page.body.count, 45, `${origin}: the journal holds 45 getPet`)
        const coverage = await control(origin, 'coverage', 'exact')
        t.equal(coverage.body.summary.calls, 45 + created, `${origin}: coverage counts every call`)
      }
    },
  )

  t.test('a reset, a clock, a snapshot and a deletion made through one replica are seen by all', async (t) => {
    const created = await call(`${origins[0]}/v1/pets`, {
      method: 'POST',
      headers: { ...ns('seen'), 'content-type': 'application/json' },
      body: { name: 'Kept', categoryId: 2 },
    })
    t.equal(created.status, 201)
    t.equal((await control(origins[1]!, 'clock', 'seen', 'POST', { now: '2029-06-01T00:00:00Z' })).status, 200)
    const clock = await control(origins[2]!, 'clock', 'seen')
    t.match(clock.body, { real: false, now: /^2029-06-01T00:00/ })
    t.equal(
      (
        await call(`${origins[2]}/__admin/snapshots`, {
          method: 'POST',
          headers: ADMIN,
          body: { name: 'seen-1', namespace: 'seen' },
        })
      ).status,
      201,
    )
    const reset = await control(origins[0]!, 'reset', 'other', 'POST', { snapshot: 'seen-1' })
    t.same(reset.body, { namespace: 'other', pets: 61 })
    const kept = await call(`${origins[1]}/v1/pets/${created.body.id}`, { headers: ns('other') })
    t.equal(kept.body.name, 'Kept', 'the snapshot carries the pet to a namespace reset on another replica')
    const inUse = await call(`${origins[1]}/__admin/snapshots/seen-1`, { method: 'DELETE', headers: ADMIN })
    t.equal(inUse.status, 409, 'a snapshot a namespace starts from is kept')
    t.equal((await control(origins[2]!, 'reset', 'seen', 'POST')).status, 200)
    t.equal(
      (await call(`${origins[0]}/v1/pets/${created.body.id}`, { headers: ns('seen') })).status,
      404,
      'the reset is seen by another replica',
    )
    t.match((await control(origins[0]!, 'clock', 'seen')).body, { real: true })
    t.equal((await call(`${origins[2]}/__admin/namespaces/other`, { method: 'DELETE', headers: ADMIN })).status, 200)
    t.equal((await control(origins[0]!, 'requests', 'other')).status, 404, 'the deleted namespace is gone everywhere')
    t.equal((await call(`${origins[1]}/__admin/snapshots/seen-1`, { method: 'DELETE', headers: ADMIN })).status, 200)
    const names = (await call(`${origins[0]}/__admin/namespaces`, { headers: ADMIN })).body.namespaces.map(
      (n: { name: string }) => n.name,
    )
    t.ok(names.includes('seen') && !names.includes('other'), "the namespaces list is the database's")
  })

  t.test('a request that gives up while it waits for its namespace lets the namespace go', async (t) => {
    const waits = { headers: ns('waits') }
    t.equal((await call(`${origins[0]}/v1/pets?limit=1`, waits)).status, 200)
    // The namespace's row held by another client: the next create waits for it to commit.
    const locker = new pg.Client({ connectionString: db.url })
    await locker.connect()
    t.teardown(() => locker.end())
    await locker.query('BEGIN')
    await locker.query("SELECT 1 FROM namespaces WHERE name = 'waits' FOR UPDATE")
    const create = { method: 'POST', headers: { ...waits.headers, 'content-type': 'application/json' } }
    const body = JSON.stringify({ name: 'Waits', categoryId: 1 })
    const gaveUp = await fetch(`${origins[0]}/v1/pets`, { ...create, body, signal: AbortSignal.timeout(300) }).then(
      () => 'answered',
      (error: Error) => error.name,
    )
    t.equal(gaveUp, 'TimeoutError')
    await new Promise((resolve) => setTimeout(resolve, 200)) // the replica sees the close before the row is let go
    await locker.query('COMMIT')
    t.equal((await call(`${origins[0]}/v1/pets?limit=1`, waits)).status, 200, 'the next request is served')
    await waitFor(
      async () => {
        const page = await control(origins[1]!, 'requests', 'waits')
        // Its owner answers it from memory and waits for the row only to commit: the entry has the
        // answer it was given as the client left.
        return page.body.count === 3 && [null, 201].includes(page.body.entries[1].status)
      },
      { what: 'the request that gave up, journaled without an answer' },
    )
  })

  t.test('keys and tokens never reach the database', async (t) => {
    await call(`${url}/v1/pets?limit=1`, { headers: ns('secret') })
    const rows = await db.query<{ record: unknown }>("SELECT record FROM requests WHERE namespace = 'secret'")
    t.equal(rows.length, 1)
    t.notMatch(JSON.stringify(rows), /shared-key|shared-admin-token/)
  })
})
