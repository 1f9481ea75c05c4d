// Starting on a shared database: replicas started together bring an empty database's schema up
// once, a start waits for a database that is starting up, and a database whose schema is newer
// than the sandbox stops its start with one line.
import { connect, createServer, type AddressInfo } from 'node:net'
import t from 'tap'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { buildCli, runCliToEnd, spawnCli } from '../support/sandbox.js'
import { MIGRATIONS } from '../../src/shared/migrations.js'

const skip = postgresSkip(t)

t.test('three replicas started at once on an empty database migrate it once', { skip }, async (t) => {
  const db = await startPostgres(t)
  const cli = await buildCli(t)
  const replicas = await Promise.all([1, 2, 3].map(() => spawnCli(t, { DATABASE_URL: db.url }, [], cli)))
  t.equal(replicas.length, 3, 'every replica started')
  const applied = await db.query<{ version: number }>('SELECT version FROM migrations ORDER BY version')
  t.same(
    applied.map((row) => row.version),
    MIGRATIONS.map((m) => m.version),
    'each version applied once',
  )
  const namespaces = await db.query<{ name: string }>('SELECT name FROM namespaces')
  t.same(namespaces, [{ name: 'default' }], 'one default namespace')
  const pets = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pets WHERE namespace = 'default'")
  t.same(pets, [{ n: 60 }], 'its initial pets stored once')
})

t.test('a start waits while the database says it is starting up', { skip }, async (t) => {
  const db = await startPostgres(t)
  const cli = await buildCli(t)
  // In front of the database: its first connections answered as a server in recovery answers them.
  const port = Number(new URL(db.url).port)
  let refused = 0
  const front = createServer((client) => {
    client.on('error', () => undefined)
    if (refused < 3) {
      refused++
      return void client.once('data', () => client.end(startingUp()))
    }
    const upstream = connect(port, '127.0.0.1')
    upstream.on('error', () => client.destroy())
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  t.teardown(() => front.close())
  const url = new URL(db.url)
  url.port = String((front.address() as AddressInfo).port)
  const replica = await spawnCli(t, { DATABASE_URL: url.href }, [], cli)
  t.equal(refused, 3, 'it was told three times that the database is starting up')
  const res = await fetch(`${replica.baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer sandbox-api-key' } })
  t.equal(res.status, 200, 'then it serves')
})

/** PostgreSQL's answer to a connection while it starts: an ErrorResponse with SQLSTATE 57P03. */
function startingUp(): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P03'],
    ['M', 'the database system is starting up'],
  ]
  const body = Buffer.concat([...fields.map(([type, text]) => Buffer.from(`${type}${text}\0`)), Buffer.from([0])])
  const length = Buffer.alloc(4)
  length.writeInt32BE(body.length + 4)
  return Buffer.concat([Buffer.from('E'), length, body])
}

t.test('a database with a newer schema stops the start with one line', { skip }, async (t) => {
  const db = await startPostgres(t)
  const cli = await buildCli(t)
  // A start that migrates it, as an older sandbox did.
  const running = await spawnCli(t, { DATABASE_URL: db.url }, [], cli)
  running.child.kill('SIGTERM')
  await running.exited
  await db.query("INSERT INTO migrations (version, name) VALUES (999, 'from a newer sandbox')")
  const { code, stderr } = await runCliToEnd({ DATABASE_URL: db.url })
  t.not(code, 0)
  t.match(stderr, /DATABASE_URL: .*schema version 999, newer than this sandbox knows/)
  t.equal(stderr.trimEnd().split('\n').length, 1, 'one line')
  t.notMatch(stderr, new URL(db.url).password, 'the password is never shown')
})
