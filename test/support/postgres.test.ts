// The PostgreSQL the shared store's tests start: a URL a user would set as DATABASE_URL works with
// the pg client (and needs its password), committed data outlives a restart and a crash, and
// terminate() cuts another client's connection in the middle of its transaction.
import { Client, type DatabaseError } from 'pg'
import t from 'tap'
import { postgresSkip, startPostgres } from './postgres.js'

const skip = postgresSkip(t)

/** A pg client on `url` whose 'error' events (a connection cut while idle) are kept, not thrown. */
async function connect(url: string, applicationName?: string): Promise<{ client: Client; errors: Error[] }> {
  const client = new Client({ connectionString: url, application_name: applicationName })
  const errors: Error[] = []
  client.on('error', (error) => errors.push(error))
  await client.connect()
  return { client, errors }
}

t.test('the URL serves a password user in a database of its own, over TCP on loopback', { skip }, async (t) => {
  const postgres = await startPostgres(t)
  const url = new URL(postgres.url)
  t.match(url.host, /^127\.0\.0\.1:\d+$/)
  t.equal(url.pathname, '/animal_store')

  const { client } = await connect(postgres.url)
  t.teardown(() => client.end())
  const [who] = (await client.query('SELECT current_user, current_database(), inet_server_addr()::text AS addr')).rows
  t.same(who, { current_user: 'animal_store', current_database: 'animal_store', addr: '127.0.0.1/32' })
  await client.query('CREATE TABLE pets (id int PRIMARY KEY, name text)')
  await client.query('INSERT INTO pets VALUES ($1, $2)', [1, 'Rex'])
  t.same(await postgres.query('SELECT name FROM pets WHERE id = $1', [1]), [{ name: 'Rex' }], 'query() sees it')
  t.same(await postgres.query('SHOW fsync'), [{ fsync: 'on' }], 'writes are flushed to disk')

  url.password = 'wrong'
  await t.rejects(connect(url.href), /password authentication failed/, 'a wrong password is refused')
})

t.test('committed data outlives a restart and a crash; uncommitted data does not', { skip }, async (t) => {
  const postgres = await startPostgres(t)
  const { client } = await connect(postgres.url)
  await client.query('CREATE TABLE pets (id int PRIMARY KEY)')
  await client.query('INSERT INTO pets VALUES (1)')
  await client.query('BEGIN')
  await client.query('INSERT INTO pets VALUES (2)')
  const pid = postgres.pid

  await postgres.restart()
  t.not(postgres.pid, pid, 'a new server process')
  t.same(await postgres.query('SELECT id FROM pets'), [{ id: 1 }], 'the commit stayed, the open transaction did not')
  await t.rejects(client.query('COMMIT'), 'the client that was connected lost its connection')

  const again = await connect(postgres.url)
  await again.client.query('INSERT INTO pets VALUES (3)')
  await postgres.kill()
  t.equal(postgres.pid, undefined, 'down')
  await t.rejects(connect(postgres.url), /ECONNREFUSED/, 'no one answers while it is down')
  await postgres.start()
  t.same(
    await postgres.query('SELECT id FROM pets ORDER BY id'),
    [{ id: 1 }, { id: 3 }],
    'the WAL brought back a commit',
  )
  t.equal(new URL(postgres.url).port, String(postgres.port), 'on the same port')
})

t.test('terminate() cuts other clients mid-transaction, or those of one application_name', { skip }, async (t) => {
  const postgres = await startPostgres(t)
  const replica1 = await connect(postgres.url, 'replica-1')
  const replica2 = await connect(postgres.url, 'replica-2')
  t.teardown(() => replica2.client.end())
  await replica1.client.query('CREATE TABLE pets (id int)')
  await replica1.client.query('BEGIN')
  await replica1.client.query('INSERT INTO pets VALUES (1)')

  t.equal(await postgres.terminate({ applicationName: 'replica-1' }), 1, 'one backend ended')
  const error = (await replica1.client.query('COMMIT').catch((error: unknown) => error)) as DatabaseError
  t.type(error, Error, 'the client sees its connection gone')
  t.equal(
    (replica1.errors[0] as DatabaseError | undefined)?.code,
    '57P01',
    'told why: admin_shutdown, "terminating connection due to administrator command"',
  )
  t.same(await postgres.query('SELECT count(*)::int AS n FROM pets'), [{ n: 0 }], 'its transaction rolled back')
  t.same((await replica2.client.query('SELECT 1 AS one')).rows, [{ one: 1 }], 'the other client is still connected')

  t.equal(await postgres.terminate(), 1, 'without a filter: every other client')
  await t.rejects(replica2.client.query('SELECT 1'))
})
