// The fork benchmark must not rot: a tiny bounded run (a 2,000-pet snapshot, 20 forks, 20 idle
// namespaces) must complete and write well-formed results. The figures are measured by npm run
// bench, not judged here.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ROOT, tempDir } from '../support/sandbox.js'

// Bounds, not timings: on a loaded machine the smoke run takes a few minutes.
t.setTimeout(12 * 60_000)

t.test('bench/forks.ts --smoke forks namespaces from a snapshot and measures idle namespaces', async (t) => {
  const out = await tempDir(t)
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/forks.ts'), '--smoke', '--out', out], {
    cwd: ROOT,
    env: { ...process.env, BENCH_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
  t.equal(code, 0, `the smoke run exits 0\n${output}`)

  const results = JSON.parse(await readFile(join(out, 'forks-smoke.json'), 'utf8'))
  t.same(
    results.forks.map((row: { storage: string }) => row.storage),
    ['data file'],
  )
  for (const row of results.forks) {
    t.equal(row.forks, results.settings.forks, `${row.storage}: every fork made`)
    t.ok(row.forkP50Ms > 0 && row.forkP99Ms >= row.forkP50Ms, `${row.storage}: p50 <= p99`)
    t.equal(typeof row.rssGrowthMiB, 'number', `${row.storage}: RSS measured`)
    t.ok(Number.isFinite(row.liveHeapGrowthMiB), `${row.storage}: the live heap measured (from heap snapshots)`)
  }
  t.same(
    results.idle.map((row: { storage: string; initialPets: unknown }) => [row.storage, row.initialPets]),
    [
      ['data file', 'default'],
      ['in memory', 'default'],
      ['data file', results.settings.pets],
      ['in memory', results.settings.pets],
    ],
  )
  for (const row of results.idle) {
    t.equal(row.namespaces, results.settings.forks, `${row.storage}: idle namespaces`)
    t.ok(row.resetP50Ms > 0 && row.resetP99Ms >= row.resetP50Ms, `${row.storage}: p50 <= p99 of a first reset`)
    t.ok(Number.isFinite(row.liveHeapPerNamespaceKiB), `${row.storage}: the live heap per idle namespace measured`)
  }
})
