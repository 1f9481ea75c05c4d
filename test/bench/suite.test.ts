// The suite benchmark must not rot: a tiny bounded run of its workload against the sandbox and
// against WireMock (its jar from Maven Central) must complete every typical test and write
// well-formed results. The figures are measured by npm run bench, not judged here.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ROOT, tempDir } from '../support/sandbox.js'

t.setTimeout(8 * 60_000)

t.test('bench/suite.ts --smoke runs the typical test on the sandbox and on WireMock', async (t) => {
  const out = await tempDir(t)
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench/suite.ts'), '--smoke', '--targets', 'process,wiremock', '--out', out],
    { cwd: ROOT, env: { ...process.env, BENCH_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 7 * 60_000)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
  t.equal(code, 0, `the smoke run exits 0\n${output}`)

  const results = JSON.parse(await readFile(join(out, 'suite-smoke.json'), 'utf8'))
  for (const target of ['sandbox, process (data file)', 'WireMock 3.13.2']) {
    for (const workers of [1, 4]) {
      const row = results.suites.find(
        (r: { target: string; workers: number }) => r.target === target && r.workers === workers,
      )
      t.ok(row, `${target}, ${workers} workers: measured`)
      t.equal(
        row?.tests,
        Math.ceil(results.settings.suiteTests / workers) * workers,
        `${target}, ${workers} workers: every test of the suite ran, shared out among the workers`,
      )
      t.ok(row?.test.p50Ms > 0 && row?.test.p99Ms >= row?.test.p50Ms, `${target}, ${workers} workers: p50 <= p99`)
    }
  }
  t.same(
    results.steps.map((row: { step: string }) => row.step),
    [
      'seeded reset {seed, count: 1000}, first after start',
      'reset',
      'first request in a new namespace',
      'first request in a new trace namespace, from a snapshot',
      'seeded reset {seed, count: 1000}',
      'seeded reset {seed, count: 1000}, the same seed again',
      `journal query by operationId at ${results.settings.journalEntries} entries, first page`,
      `journal count by operationId at ${results.settings.journalEntries} entries`,
      `journal query by operationId matching 1 of ${results.settings.journalEntries} entries`,
    ],
    'every single step is timed',
  )
  t.ok(results.ratios.every((row: { testsPerSecondVsWireMock: number }) => row.testsPerSecondVsWireMock > 0))
  t.ok(
    results.targets.length >= 6 && results.targets.every((row: { met: unknown }) => typeof row.met === 'boolean'),
    'every target is judged',
  )
})
