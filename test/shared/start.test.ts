// Starting on a shared database: replicas started together bring an empty database's schema up
// once, and a database whose schema is newer than the sandbox stops its start with one line.
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
