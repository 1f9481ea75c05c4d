// Record against the stand-in real API, replay against a sandbox: no drift. Replay against the
// stand-in with one rule changed: that drift, exit 1. Where the upstream key is not: secrets.test.ts.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { API_KEY, runCliToEnd, spawnCli, startTestSandbox, tempDir } from '../support/sandbox.js'
import { clientSequence, standInFor } from './stand-in.js'

const UPSTREAM_KEY = 'upstream-secret-key-91c2'

t.test('record, then replay against a sandbox and against a drifted upstream', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  const sessions = await tempDir(t)
  const recorder = await spawnCli(t, {
    API_KEYS: API_KEY,
    DATA_FILE: ':memory:',
    ADMIN_TOKEN: 'record-admin',
    ...upstream,
    UPSTREAM_MODE: 'record',
    SESSION_DIR: sessions,
  })
  await clientSequence(recorder.baseUrl, 'rec')
  t.same(await readdir(sessions), ['rec.session.jsonl'], 'one session file per namespace')
  const session = join(sessions, 'rec.session.jsonl')
  const lines = (await readFile(session, 'utf8')).trim().split('\n')
  t.match(JSON.parse(lines[0] ?? ''), {
    format: 'animal-store-session',
    version: 1,
    namespace: 'rec',
    upstream: standIn.baseUrl,
  })
  t.same(
    lines.slice(1).map((line) => (JSON.parse(line) as { operationId: string }).operationId),
    ['createPet', 'listPets', 'listPets', 'getPet', 'getPet'],
    'the exchanges, in order',
  )
  const origin = new URL(recorder.baseUrl).origin
  const journal = await fetch(`${origin}/__admin/requests?namespace=rec`, {
    headers: { authorization: 'Bearer record-admin' },
  })
  const journalText = await journal.text()
  t.match(JSON.parse(journalText), { count: 5 }, 'the journal has the requests')
  await writeFile(join(sessions, 'journal.json'), journalText)

  // Against a sandbox, into a fresh namespace: the same answers.
  const { baseUrl } = await startTestSandbox(t)
  const clean = await runCliToEnd({}, ['replay', session, '--against', baseUrl, '--api-key', API_KEY])
  t.equal(clean.code, 0, `no drift: ${clean.stdout}${clean.stderr}`)
  t.match(clean.stdout, /Replayed 5 requests .* \(namespace replay-[0-9a-f]+\): no drift/)
  const fromJournal = await runCliToEnd({}, [
    'replay',
    join(sessions, 'journal.json'),
    '--against',
    baseUrl,
    '--api-key',
    API_KEY,
  ])
  t.equal(fromJournal.code, 0, `an exported journal replays too: ${fromJournal.stdout}${fromJournal.stderr}`)

  // Against the upstream with one rule changed: that drift, and exit 1.
  standIn.reset()
  standIn.switches = { createdIs200: true }
  const drifted = await runCliToEnd({ UPSTREAM_API_KEY: UPSTREAM_KEY }, [
    'replay',
    session,
    '--against',
    standIn.baseUrl,
    '--json',
  ])
  t.equal(drifted.code, 1, 'drift exits 1')
  const report = JSON.parse(drifted.stdout) as { differences: { operationId: string; pointer: string }[] }
  t.same(
    report.differences.map((d) => [d.operationId, d.pointer]),
    [['createPet', '/status']],
    'the one rule changed, and nothing else',
  )
})
