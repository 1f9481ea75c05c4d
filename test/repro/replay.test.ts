// `animal-store-sandbox replay <bundle>`: a bundle taken from a real sandbox replays in a sandbox of
// its own to the same answers, faults and data; where the answers differ, it names the first one.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ns, startControlSandbox, traceparent } from '../support/control.js'
import { tempDir, waitFor } from '../support/sandbox.js'
import { runCli, startCli } from './cli.js'

/** A namespace's life under seeded chaos and a moved clock, and its bundle in a file. */
async function recordedBundle(t: Test): Promise<{ file: string; bundle: any }> {
  const { control, api } = await startControlSandbox(t)
  const team = ns('team-a')
  await control('POST', '/reset?namespace=team-a', { seed: 3, count: 4 })
  await control('POST', '/clock?namespace=team-a', { now: '2030-12-04T12:00:00Z' })
  await control('POST', '/faults?namespace=team-a', { operationId: '*', status: 503, probability: 0.3, seed: 11 })
  await control('POST', '/faults?namespace=team-a', {
    operationId: 'getPet',
    fault: 'connection-reset',
    after: 2,
    times: 1,
  })
  for (let i = 0; i < 6; i++) {
    await api('POST', '/pets', { name: `Pet ${i}`, categoryId: 1 + (i % 3) }, team)
    await api('GET', `/pets/${1 + i}`, undefined, team).catch(() => undefined)
    await api('GET', '/pets?limit=3', undefined, { ...team, ...traceparent('b'.repeat(32)) })
  }
  await api('GET', '/pets/1', undefined, { ...team, authorization: 'Bearer not-a-key' })
  const bundle = (await control('GET', '/bundle?namespace=team-a')).body
  const file = join(await tempDir(t), 'bundle.json')
  await writeFile(file, JSON.stringify(bundle))
  return { file, bundle }
}

t.test('a bundle replays to the same answers, faults and data', async (t) => {
  const { file, bundle } = await recordedBundle(t)
  const statuses = bundle.journal.entries.map((entry: { status: number | null }) => entry.status)
  t.ok(statuses.includes(503), 'the seeded chaos hit some calls')
  t.ok(statuses.includes(null), 'a connection-reset fault broke a connection')
  t.ok(statuses.includes(401), 'a call with a bad key was refused')
  const { code, stdout, stderr } = await runCli(t, ['replay', file])
  t.equal(code, 0, stderr)
  t.match(
    stdout,
    `Replayed ${statuses.length} of ${statuses.length} requests of namespace team-a: every answer is as recorded`,
  )
})

t.test('the first divergence: the request, a JSON pointer, expected and got', async (t) => {
  const { file, bundle } = await recordedBundle(t)
  // The sunset of getPet came a day earlier in the recorded run: its clock said so.
  const offsetMs = bundle.clock.offsetMs + 24 * 3600_000
  await writeFile(file, JSON.stringify({ ...bundle, clock: { ...bundle.clock, offsetMs } }))
  const { code, stdout } = await runCli(t, ['replay', file, '--json'])
  t.equal(code, 1)
  const { divergence, sent } = JSON.parse(stdout)
  const first = bundle.journal.entries.findIndex((entry: any) => entry.operationId === 'getPet' && entry.status === 200)
  t.equal(sent, first + 1, 'it stops at the first answer that differs')
  t.same(divergence, {
    request: first + 1,
    method: 'GET',
    path: bundle.journal.entries[first].path,
    pointer: '/status',
    expected: 200,
    got: 410,
  })
})

t.test('data left otherwise than recorded is a divergence at its pointer', async (t) => {
  const { file, bundle } = await recordedBundle(t)
  const pets = bundle.now.pets.map((pet: any, i: number) => (i === 5 ? { ...pet, name: 'Changed' } : pet))
  await writeFile(file, JSON.stringify({ ...bundle, now: { pets } }))
  const { code, stdout } = await runCli(t, ['replay', file])
  t.equal(code, 1)
  t.match(stdout, /at \/now\/pets\/5\/name: expected "Changed", got "Pet \d"/)
})

t.test('--stop-before keeps serving the state before request n', async (t) => {
  const { file, bundle } = await recordedBundle(t)
  const n = bundle.journal.entries.findIndex((entry: any) => entry.status === 503) + 1
  const run = startCli(t, ['replay', file, '--stop-before', String(n)])
  await waitFor(() => run.stdout.includes('Ctrl-C stops it'), { what: 'the replay serving its state' })
  const origin = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout)?.[1] as string
  const key = /Bearer (\S+), X-Sandbox-Namespace/.exec(run.stdout)?.[1] as string
  t.match(run.stdout, `Serving the state before request ${n} (${bundle.journal.entries[n - 1].method} `)
  const entry = bundle.journal.entries[n - 1]
  const res = await fetch(`${origin}${entry.path}`, {
    method: entry.method,
    headers: { authorization: `Bearer ${key}`, 'x-sandbox-namespace': 'team-a', 'content-type': 'application/json' },
    body: entry.body === null ? undefined : JSON.stringify(entry.body),
  })
  t.equal(res.status, 503, 'request n meets the fault it met in the recorded run')
  run.child.kill('SIGTERM')
  t.equal(await run.exited, 0)
})

t.test('a file that is no bundle, or of a version it does not read, exits 2 saying why', async (t) => {
  const dir = await tempDir(t)
  await writeFile(
    join(dir, 'later.json'),
    JSON.stringify({ format: 'animal-store-sandbox.bundle', version: 2, sandbox: { version: '9.0.0' } }),
  )
  await writeFile(join(dir, 'other.json'), '{"hello": 1}')
  const later = await runCli(t, ['replay', join(dir, 'later.json')])
  t.equal(later.code, 2)
  t.match(later.stderr, /bundle of version 2, written by sandbox 9\.0\.0; this sandbox reads version 1/)
  const other = await runCli(t, ['replay', join(dir, 'other.json')])
  t.equal(other.code, 2)
  t.match(other.stderr, /is not a bundle/)
})
