// NAMESPACES_PER_KEY on replicas sharing one PostgreSQL database: the count is the database's, so
// replicas making namespaces for one key at once never take it past its quota; another key is left
// alone; a deletion, and the expiry of a forgotten namespace, give room back; and a replica started
// later counts what the others made. A key is kept as its hash, never itself.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { ADMIN, TOKEN, call, replicaUrl } from '../support/replicas.js'
import { buildCli, spawnCli, waitFor } from '../support/sandbox.js'
import { NAMESPACE_EXPIRY_DAYS } from '../../src/shared/expiry.js'

const skip = postgresSkip(t)
const [A, B] = ['team-a-key', 'team-b-key']
const PER_KEY = 3

t.test(
  'replicas racing to make namespaces for one key make exactly its quota; deletion, expiry and restarts keep the count',
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    const cli = await buildCli(t)
    const env = (n: number): Record<string, string> => ({
      DATABASE_URL: replicaUrl(db, n),
      API_KEYS: `${A},${B}`,
      ADMIN_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
      NAMESPACES_PER_KEY: String(PER_KEY),
    })
    const replicas = await Promise.all([1, 2].map((n) => spawnCli(t, env(n), [], cli)))
    const origins = replicas.map((replica) => new URL(replica.baseUrl).origin)
    const create = (origin: string, key: string, name: string) =>
      call(`${origin}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-sandbox-namespace': name },
        body: { name: 'Rex', categoryId: 1 },
      })
    const names = async (like: string): Promise<string[]> =>
      (await db.query<{ name: string }>('SELECT name FROM namespaces WHERE name LIKE $1 ORDER BY name', [like])).map(
        (row) => row.name,
      )

    const racing = Array.from({ length: 12 }, (_, i) => `race-${String(i).padStart(2, '0')}`)
    const answers = await Promise.all(racing.map((name, i) => create(origins[i % 2] as string, A, name)))
    const made = racing.filter((_, i) => answers[i]?.status === 201)
    t.equal(made.length, PER_KEY, 'exactly the quota is made, whichever replica was asked')
    const refusals = answers.filter((answer) => answer.status !== 201)
    t.ok(
      refusals.every(
        (answer) =>
          answer.status === 503 &&
          answer.body.code === 'namespace_limit' &&
          answer.body.status === 503 &&
          /NAMESPACES_PER_KEY/.test(answer.body.message) &&
          answer.headers.get('retry-after') === '1',
      ),
      'every other is refused by the quota, with the Error body and Retry-After',
    )
    t.same(await names('race-%'), made, 'the database holds the namespaces made, and none refused')
    // Those a replica that does not own the default namespace answered are handed to its owner,
    // which takes them at a later request there.
    const journaled = async (): Promise<number> => {
      await call(`${origins[0]}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${B}` } })
      const page = await call(`${origins[0]}/__admin/requests?namespace=default&status=503`, { headers: ADMIN })
      return page.body.entries.length
    }
    await waitFor(async () => (await journaled()) === refusals.length, {
      what: "every refusal, in the default namespace's journal as one process keeps it",
    })
    const owners = await db.query<{ owner: string | null }>(
      "SELECT DISTINCT owner FROM namespaces WHERE name LIKE 'race-%'",
    )
    t.equal(owners.length, 1, 'one owner for the one key')
    t.not(owners[0]?.owner, A, 'kept as a hash of the key, not the key')

    t.equal((await create(origins[1] as string, B, 'team-b')).status, 201, 'another key is left alone')
    const [gone, kept] = made as [string, string, string]
    const deleted = await call(`${origins[0]}/__admin/namespaces/${gone}`, { method: 'DELETE', headers: ADMIN })
    t.equal(deleted.status, 200, 'a namespace deleted')
    t.equal((await create(origins[1] as string, A, 'after-delete')).status, 201, 'gives its room back')
    t.equal((await create(origins[0] as string, A, 'one-too-many')).status, 503, 'and only that room')

    // Every replica stops; the key's namespace `kept` is forgotten long ago, and the next start's sweep expires it.
    for (const replica of replicas) replica.child.kill('SIGTERM')
    await Promise.all(replicas.map((replica) => replica.exited))
    const days = NAMESPACE_EXPIRY_DAYS + 1
    const longAgo = Date.now() - days * 24 * 60 * 60 * 1000
    await db.query(`UPDATE namespaces SET created_at = now() - make_interval(days => ${days}) WHERE name = $1`, [kept])
    await db.query(
      `UPDATE requests SET record = jsonb_set(record, '{time}', to_jsonb(${longAgo}::bigint)) WHERE namespace = $1`,
      [kept],
    )
    const later = new URL((await spawnCli(t, env(3), [], cli)).baseUrl).origin
    await waitFor(async () => !(await names(kept)).includes(kept), { what: "the start's sweep" })
    t.equal((await create(later, A, 'after-expiry')).status, 201, 'the expired namespace gave its room back')
    const refused = await create(later, A, 'after-restart')
    t.match(
      refused,
      { status: 503, body: { code: 'namespace_limit' } },
      'a replica started later counts what others made',
    )
    t.same(await names('after-restart'), [], 'and makes nothing')
  },
)
