// A long-lived shared sandbox keeps itself tidy: a namespace neither made nor called within
// NAMESPACE_EXPIRY_DAYS leaves the database at a replica's sweep (at its start, then hourly); one
// called lately, however old, and the default namespace stay. Deletions are remembered as long.
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { ADMIN, API, KEY, TOKEN, call } from '../support/replicas.js'
import { buildCli, spawnCli, waitFor } from '../support/sandbox.js'
import { NAMESPACE_EXPIRY_DAYS } from '../../src/shared/expiry.js'

const skip = postgresSkip(t)

t.test(
  'a forgotten namespace is deleted at a sweep; one called lately and the default one stay',
  { skip },
  async (t) => {
    const db = await startPostgres(t)
    const cli = await buildCli(t)
    const env = { DATABASE_URL: db.url, API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn' }
    const first = await spawnCli(t, env, [], cli)
    const origin = new URL(first.baseUrl).origin
    for (const name of ['forgotten', 'lately'])
      t.equal(
        (await call(`${origin}/v1/pets?limit=1`, { headers: { ...API, 'x-sandbox-namespace': name } })).status,
        200,
      )
    first.child.kill('SIGTERM')
    await first.exited
    // Every namespace made long ago; only 'lately' was called within the expiry.
    const days = NAMESPACE_EXPIRY_DAYS + 1
    await db.query(`UPDATE namespaces SET created_at = now() - make_interval(days => ${days})`)
    const longAgo = Date.now() - days * 24 * 60 * 60 * 1000
    await db.query(
      `UPDATE requests SET record = jsonb_set(record, '{time}', to_jsonb(${longAgo}::bigint)) WHERE namespace <> 'lately'`,
    )
    const names = async (): Promise<string[]> =>
      (await db.query<{ name: string }>('SELECT name FROM namespaces ORDER BY name')).map((row) => row.name)
    t.same(await names(), ['default', 'forgotten', 'lately'], 'all three kept until a sweep')
    // A deletion is remembered within the expiry only (for the entries a replica kept meanwhile).
    await db.query(`INSERT INTO deleted_namespaces VALUES ('long-gone', now() - make_interval(days => ${days}))`)

    const second = await spawnCli(t, env, [], cli)
    await waitFor(async () => !(await names()).includes('forgotten'), { what: 'the sweep at the start' })
    t.same(await names(), ['default', 'lately'], 'the forgotten one deleted')
    const left = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM requests WHERE namespace = 'forgotten'")
    t.same(left, [{ n: 0 }], 'with its requests')
    const remembered = async (): Promise<string[]> =>
      (await db.query<{ name: string }>('SELECT name FROM deleted_namespaces')).map((row) => row.name)
    await waitFor(async () => !(await remembered()).includes('long-gone'), { what: 'the old deletion forgotten' })
    t.same(await remembered(), ['forgotten'], 'its deletion remembered')
    const listed = await call(`${new URL(second.baseUrl).origin}/__admin/namespaces`, { headers: ADMIN })
    t.same(
      listed.body.namespaces.map((ns: { name: string }) => ns.name),
      ['default', 'lately'],
      'the control API lists what the database keeps',
    )
  },
)
