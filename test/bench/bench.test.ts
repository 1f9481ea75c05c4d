// The benchmark harness must not rot: a tiny bounded run (seconds) of every scenario must judge
// every guardrail on well-formed figures. The figures themselves are not checked here: speed is
// measured by npm run bench.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ROOT, tempDir } from '../support/sandbox.js'
import { haproxySkip } from '../support/haproxy.js'
import { postgresSkip } from '../support/postgres.js'
import { skipWithout } from '../support/system-programs.js'

t.setTimeout(5 * 60_000)

const skip = skipWithout(t, 'wrk', 'wrk') || skipWithout(t, 'h2load', 'nghttp2-client')

/** `bench/run.ts --smoke` from src/ with these arguments, killed past `timeoutMs`: its exit code and output. */
async function smokeRun(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/run.ts'), '--smoke', ...args], {
    cwd: ROOT,
    env: { ...process.env, BENCH_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
  return { code, output }
}

t.test(
  'bench/run.ts --smoke runs every scenario, before and after, and judges every guardrail',
  { skip },
  async (t) => {
    const out = await tempDir(t)
    const scenarios = ['cold-start', 'raw', 'https', 'http2', 'tests', 'await', 'namespaces', 'data-file', 'soak']
    // --before this same checkout: the earlier commit's sandbox runs beside this one, taking turns.
    const { code, output } = await smokeRun(['--out', out, '--before', ROOT, ...scenarios], 4 * 60_000)
    t.equal(code, 0, `the smoke run exits 0\n${output}`)

    const report = JSON.parse(await readFile(join(out, 'smoke.json'), 'utf8'))
    t.equal(report.mode, 'smoke')
    t.type(report.machine.loadAverage1m.before, 'number', "the machine's load before the run")
    t.same(report.loadGenerators, { 'HTTP/1.1': 'wrk', 'HTTP/2': 'h2load' })
    const { results } = report
    t.same(Object.keys(results), scenarios, 'every scenario has its results')
    t.same(
      results.raw.map((row: { request: string; server: string }) => `${row.request} on ${row.server}`),
      [
        'GET /v1/pets on bare',
        'GET /v1/pets on sandbox',
        'GET /v1/pets on before',
        'POST /v1/pets on bareDurable',
        'POST /v1/pets on sandbox',
        'POST /v1/pets on before',
      ],
      'reads against the bare server, creates against the one that syncs',
    )
    // Over TLS, each against the bare server over the same protocol.
    for (const [scenario, protocol] of [
      ['https', 'HTTPS/1.1'],
      ['http2', 'HTTP/2'],
    ] as const)
      t.same(
        results[scenario].map((row: { request: string; protocol: string; server: string }) => [
          row.request,
          row.protocol,
          row.server,
        ]),
        ['bare', 'sandbox', 'before'].map((server) => ['GET /v1/pets', protocol, server]),
        `${scenario}: GET /v1/pets over ${protocol} on each server`,
      )
    for (const row of [...results.raw, ...results.https, ...results.http2]) {
      const what = `${row.request} over ${row.protocol} on ${row.server}`
      t.ok(row.requestsPerSecond > 0 && row.p50Ms > 0, `${what}: req/s and p50`)
      t.equal(row.errors, 0, `${what}: no failed request ${JSON.stringify(row.failures)}`)
    }
    // The other figures are guardrails, each checked below; the deletion is not one.
    for (const [server, figures] of [
      ['sandbox', results['data-file']],
      ['before', results['data-file'].before],
    ])
      t.ok(Number.isFinite(figures.deletionMs.differenceMs), `data-file: the deletion on ${server}, each store`)
    t.equal(results.soak.ok, true, `the soak found nothing wrong: ${JSON.stringify(results.soak)}`)

    t.same(
      report.guardrails.map((g: { name: string; limit: string }) => [g.name.replace(/ \(.*/, ''), g.limit]),
      [
        ['typical test p50, in process', '≤ 3 ms'],
        ['reset p50', '≤ 1 ms'],
        ['awaited call reported after its answer p99', '≤ 5 ms'],
        ['first use of a namespace p50', '≤ 1 ms'],
        ['first request in a new trace namespace p50', '≤ 1 ms'],
        ['first create in its own namespace, data file vs memory', '≤ 1 ms'],
        ['reset of a namespace holding data, data file vs memory', '≤ 1 ms'],
        ['GET /v1/pets req/s vs bare', '≥ 0.6×'],
        ['GET /v1/pets over HTTPS/1.1 req/s vs bare', '≥ 0.6×'],
        ['GET /v1/pets over HTTP/2 req/s vs bare', '≥ 0.6×'],
        ['durable creates req/s vs the durable bare', 'within 10% of before'],
        ['cold start vs bare', '≤ 1.3×'],
        ['RSS per idle namespace', 'within 10% of before'],
      ],
      'every guardrail of docs/performance.md, with its limit',
    )
    for (const g of report.guardrails) {
      t.ok(Number.isFinite(g.measured), `${g.name}: measured`)
      t.ok(Number.isFinite(g.before), `${g.name}: and before, in the same run`)
    }
  },
)

t.test(
  'bench/run.ts --smoke shared: the data file against PostgreSQL, and replicas behind HAProxy',
  { skip: skip || postgresSkip(t) || haproxySkip(t) },
  async (t) => {
    const out = await tempDir(t)
    const { code, output } = await smokeRun(['--out', out, 'shared'], 2 * 60_000)
    t.equal(code, 0, `the smoke run exits 0\n${output}`)

    const { shared } = JSON.parse(await readFile(join(out, 'smoke.json'), 'utf8')).results
    const one = ['sandbox', 'postgres', 'replicas1', 'replicas3']
    const spread = ['replicas1', 'replicas3', 'replicas3ByNamespace']
    t.same(
      shared.requests.map((row: { request: string; server: string; namespaces?: number }) =>
        [row.request, row.server, row.namespaces ?? 1].join(' '),
      ),
      [
        ...one.map((server) => `GET /v1/pets ${server} 1`),
        ...one.map((server) => `POST /v1/pets ${server} 1`),
        ...spread.map((server) => `GET /v1/pets ${server} 4`),
        ...spread.map((server) => `POST /v1/pets ${server} 4`),
      ],
      'reads and creates on each store and through HAProxy, then spread over namespaces',
    )
    for (const row of shared.requests) {
      const what = `${row.request} on ${row.server}`
      t.ok(row.requestsPerSecond > 0 && row.p50Ms > 0, `${what}: req/s and p50`)
      t.equal(row.errors, 0, `${what}: no failed request ${JSON.stringify(row.failures)}`)
      t.ok(row.sandboxCpuUs > 0, `${what}: the sandboxes' CPU per request (${row.sandboxCpuUs} µs)`)
      if (row.server !== 'sandbox')
        t.ok(row.postgresCpuUs > 0, `${what}: PostgreSQL's CPU per request (${row.postgresCpuUs} µs)`)
    }
    t.ok(shared.walFlushes.commits > 0 && shared.walFlushes.flushes > 0, 'commits and WAL flushes')
    for (const store of ['sandbox', 'postgres'])
      t.ok(shared.tests[store].typicalTestMs > 0, `the typical test on ${store}`)
    // What the run saw (windows measured again, a replica its balancer took out) says why a row failed.
    if (!t.passing()) t.comment(output)
  },
)
