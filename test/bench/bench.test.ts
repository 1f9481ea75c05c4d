// The benchmark harness must not rot: a tiny bounded run (seconds) must produce well-formed
// results. The figures themselves are not checked here: speed is measured by npm run bench.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ROOT, tempDir } from '../support/sandbox.js'

t.test('npm run bench --smoke writes JSON, Markdown and the store-size chart', async (t) => {
  const out = await tempDir(t)
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/run.ts'), '--smoke', '--out', out], {
    cwd: ROOT,
    env: { ...process.env, BENCH_FROM_SOURCE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.resume()
  const timer = setTimeout(() => child.kill('SIGKILL'), 100_000)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  clearTimeout(timer)
  t.equal(code, 0, `the smoke run exits 0\n${stderr}`)

  const results = JSON.parse(await readFile(join(out, 'latest.json'), 'utf8'))
  t.equal(results.mode, 'smoke')
  t.type(results.machine.loadAverage1m.before, 'number', "the machine's load before the run")
  t.match(results.loadGenerator, /^(wrk|autocannon)$/)
  for (const name of ['bare', 'sandboxFixtures', 'sandboxSeed']) {
    t.ok(results.coldStart[name].medianMs > 0, `cold start ${name} has a median`)
    t.equal(results.coldStart[name].runsMs.length, 2, `cold start ${name} has every run`)
  }
  for (const server of ['bare', 'sandbox']) {
    for (const endpoint of ['list', 'get', 'create']) {
      const row = results.throughput.find(
        (r: { server: string; endpoint: string }) => r.server === server && r.endpoint === endpoint,
      )
      t.ok(
        row && row.requestsPerSecond > 0 && row.p50Ms > 0 && row.p99Ms >= row.p50Ms,
        `${server} ${endpoint}: req/s and p50 ≤ p99`,
      )
      t.equal(row?.errors, 0, `${server} ${endpoint}: no failed request`)
      t.ok(
        row &&
          row.spread.min <= Math.round(row.requestsPerSecond) &&
          Math.round(row.requestsPerSecond) <= row.spread.max,
        `${server} ${endpoint}: the rounds' lowest and highest req/s around the median`,
      )
    }
    t.ok(
      results.memory[server].idleMiB > 0 && results.memory[server].afterLoadMiB > 0,
      `${server}: RSS idle and after load`,
    )
  }
  // The durable bare server is measured on creates only.
  t.same(
    results.throughput
      .filter((r: { server: string }) => r.server === 'bareDurable')
      .map((r: { endpoint: string; requestsPerSecond: number }) => [r.endpoint, r.requestsPerSecond > 0]),
    [['create', true]],
    'the durable bare server: creates only',
  )
  t.same(
    results.storeSize.map((p: { pets: number }) => p.pets),
    [1000, 2000],
    'the store-size curve has its points',
  )
  for (const point of results.storeSize)
    t.ok(point.startMs > 0 && point.createP50Ms > 0 && point.listP50Ms > 0, `${point.pets} pets: figures`)
  t.ok(
    results.targets.length >= 5 && results.targets.every((x: { met: unknown }) => typeof x.met === 'boolean'),
    'every target is judged',
  )
  // The raw path's targets as the README states them, each a ratio to the bare server.
  const limits = Object.fromEntries(results.targets.map((x: { name: string; target: string }) => [x.name, x.target]))
  t.equal(limits['cold start (fixtures) vs bare'], '≤ 1.3×', 'cold start within 1.3× of bare')
  t.equal(limits['GET /v1/pets (limit 20), 4 connections: req/s vs bare'], '≥ 0.9×', 'GET at 0.9× of bare')
  t.equal(limits['POST /v1/pets (durable), 4 connections: req/s vs bare'], '≥ 0.8×', 'durable POST at 0.8× of bare')
  t.equal(limits['RSS after load vs bare'], '≤ 1.5×', 'RSS after load within 1.5× of bare')
  t.equal(
    limits['POST /v1/pets (durable), 4 connections: req/s vs the durable bare (like for like)'],
    '≥ 0.8×',
    'durable POST also against the durable bare',
  )

  const markdown = await readFile(join(out, 'latest.md'), 'utf8')
  t.match(markdown, /\| Cold start, spawn → first 200 on GET \/v1\/pets/)
  t.match(markdown, /load average \(1 min\) [\d.]+ before, [\d.]+ after/, "the machine's load beside the figures")
  t.match(markdown, /\| POST \/v1\/pets \(durable\) \| 4 \|/)
  const svg = await readFile(join(out, 'store-size-curve.svg'), 'utf8')
  t.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  t.equal(svg.match(/<circle /g)?.length, 8, 'four lines of two points each')
})
