// The whole path with real parts: a team's node:test suite, run as a child process under seeded
// chaos against a real sandbox, fails and leaves its bundle; the bundle replays to the same answers
// and names where a run without the fault diverges; shrink finds the one fault that mattered.
import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { chance } from '../../src/namespaces/chance.js'
import { ADMIN_TOKEN, startControlSandbox } from '../support/control.js'
import { API_KEY, ROOT, tempDir } from '../support/sandbox.js'
import { runCli } from './cli.js'

const SUITE = join(ROOT, 'test/repro/fixtures/keeper-suite.mjs')
const TEST_NAME = 'a keeper adds pets and reads the first back'

/** Runs the suite as CI would; its exit code. */
function runSuite(env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, [SUITE], { env: { ...process.env, ...env }, stdio: 'ignore' })
  return new Promise((resolve) => child.once('close', resolve))
}

t.test('a failing suite leaves a bundle that replays, and shrinks to the one fault that mattered', async (t) => {
  const { origin } = await startControlSandbox(t)
  const dir = await tempDir(t)
  // Noise on the calls the client retries, and a draw that hits the one read it does not retry.
  let seed = 1
  while (chance(seed, 1) >= 0.5) seed++
  const chaos = [
    { operationId: 'createPet', status: 503, probability: 0.3, seed: 101 },
    { operationId: 'listPets', status: 503, probability: 0.3, seed: 202 },
    { operationId: 'getPet', status: 503, probability: 0.5, seed },
  ]
  const code = await runSuite({
    ANIMAL_STORE_URL: origin,
    ANIMAL_STORE_API_KEY: API_KEY,
    ANIMAL_STORE_ADMIN_TOKEN: ADMIN_TOKEN,
    ANIMAL_STORE_NAMESPACE: 'keeper',
    ANIMAL_STORE_FAULTS: JSON.stringify(chaos),
    ANIMAL_STORE_BUNDLE_DIR: dir,
  })
  t.not(code, 0, 'the suite fails')
  const file = join(dir, `${TEST_NAME}.json`)
  const bundle = JSON.parse(await readFile(file, 'utf8'))
  const hits = bundle.faults.flatMap((fault: { hits: unknown[] }) => fault.hits)
  t.ok(hits.length >= 4, `many faults fired (${hits.length})`)
  const failing = bundle.journal.entries.findIndex((entry: { operationId: string }) => entry.operationId === 'getPet')
  t.match(bundle.journal.entries[failing], { status: 503, error: { code: 'injected_fault' } })

  const replayed = await runCli(t, ['replay', file])
  t.equal(replayed.code, 0, 'the replay meets every answer the suite met, the failing one included')
  t.match(replayed.stdout, 'every answer is as recorded')

  // Without the fault on the read, a replay diverges exactly where the suite failed.
  const faults = bundle.faults.filter((fault: { operationId: string }) => fault.operationId !== 'getPet')
  const without = join(dir, 'without.json')
  await writeFile(without, JSON.stringify({ ...bundle, faults }))
  const diverged = await runCli(t, ['replay', without, '--json'])
  t.equal(diverged.code, 1)
  t.match(JSON.parse(diverged.stdout).divergence, {
    request: failing + 1,
    method: 'GET',
    pointer: '/status',
    expected: 503,
    got: 200,
  })

  const shrunk = await runCli(t, ['shrink', file, '--max-runs', '40', '--', process.execPath, SUITE])
  t.equal(shrunk.code, 0, shrunk.stderr)
  t.same(JSON.parse(shrunk.stdout), [{ operationId: 'getPet', status: 503, after: 0, times: 1 }], 'the one fault')
  t.match(shrunk.stderr, `The smallest set that fails the test: 1 of ${hits.length} faults`)
})

t.test('a test that passes with every fault that fired is not shrunk: exit 1', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await control('POST', '/faults', { operationId: 'listPets', status: 503, times: 1 })
  await api('GET', '/pets')
  const file = join(await tempDir(t), 'bundle.json')
  await writeFile(file, JSON.stringify((await control('GET', '/bundle')).body))
  const shrunk = await runCli(t, ['shrink', file, '--', process.execPath, '-e', 'process.exit(0)'])
  t.equal(shrunk.code, 1)
  t.match(shrunk.stderr, 'The test passes with every fault that fired')
})

t.test('--max-runs bounds the runs: exit 3 with the smallest failing set so far', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await control('POST', '/faults', { operationId: 'listPets', status: 503, times: 6 })
  for (let i = 0; i < 6; i++) await api('GET', '/pets')
  const file = join(await tempDir(t), 'bundle.json')
  await writeFile(file, JSON.stringify((await control('GET', '/bundle')).body))
  // Fails whenever the sixth call's fault is armed.
  const check = `process.exit(JSON.parse(process.env.ANIMAL_STORE_FAULTS).some((f) => f.after === 5) ? 1 : 0)`
  const shrunk = await runCli(t, ['shrink', file, '--max-runs', '3', '--', process.execPath, '-e', check])
  t.equal(shrunk.code, 3)
  t.equal(shrunk.stderr.match(/^run \d+/gm)?.length, 3, 'three runs')
  const left = JSON.parse(shrunk.stdout)
  t.ok(left.length < 6 && left.some((fault: { after: number }) => fault.after === 5), `${left.length} faults left`)
})
