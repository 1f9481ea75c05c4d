// npm run bench: the guardrails of docs/performance.md, measured in one run, each against a bare
// node:http server answering the same bytes (bench/bare-server.mjs) where it is a ratio. Servers run
// on core 0, the load generator and this script on core 1; everything talks to 127.0.0.1 and every
// loop is bounded in count and time.
//
//   tsx bench/run.ts [--smoke] [--out DIR] [--load wrk|autocannon] [scenario ...]
//
// Scenarios: cold-start, raw, tests, namespaces (all four by default) and soak (only when named:
// minutes of mixed load, SOAK_SECONDS). --smoke is a tiny run (seconds) that checks the harness;
// with BENCH_FROM_SOURCE=1 the sandbox runs from src/ through tsx instead of dist/.
import { randomUUID } from 'node:crypto'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { Agent } from 'node:http'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { AnimalStoreControlClient } from '../modules/node/src/client.js'
import { httpTransport } from '../modules/node/src/transport.js'
import { commandExists, findLoadGenerator, type LoadGenerator, type LoadResult } from './load.js'
import { API_KEY, AUTH, ROOT, SERVERS, rssMiB, startServer, type ServerName, type ServerSpec } from './servers.js'
import { soak } from './soak.js'

const run = promisify(execFile)
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { smoke: { type: 'boolean', default: false }, out: { type: 'string' }, load: { type: 'string' } },
})
const SMOKE = flags.smoke === true
const SETTINGS = SMOKE
  ? { coldRuns: 2, seconds: 1, rounds: 1, warmupSeconds: 0, connections: 4, tests: 20, samples: 5, namespaces: 20 }
  : {
      coldRuns: 10,
      seconds: 3,
      rounds: 3,
      warmupSeconds: 1,
      connections: 50,
      tests: 2000,
      samples: 50,
      namespaces: 1000,
    }
const SCENARIOS = positionals.length > 0 ? positionals : ['cold-start', 'raw', 'tests', 'namespaces']
const OUT_DIR = flags.out ?? join(ROOT, 'bench/results')
const NEW_PET = JSON.stringify({ name: 'Bench', categoryId: 1, status: 'available' })

interface Context {
  readonly work: string
  readonly core: number | undefined
  readonly load: LoadGenerator
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2
}
const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits
const log = (message: string): void => void process.stderr.write(`bench: ${message}\n`)

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await action()
  return performance.now() - started
}

/** A server with a fresh data file of its own in the run's folder, removed when it stops. */
async function start(ctx: Context, spec: ServerSpec, env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(ctx.work, `${spec.name}-`))
  const started = await startServer(spec, { core: ctx.core, env: { DATA_FILE: join(dir, 'db.json'), ...env } })
  return {
    ...started,
    async stop() {
      await started.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

// ── cold-start: spawn → first 200 on GET /v1/pets, on the image's Node when a full run can fetch it

async function coldStart(ctx: Context) {
  const node = SMOKE ? undefined : await fetchImageNode(ctx.work)
  const onNode = (spec: ServerSpec): ServerSpec =>
    node === undefined ? spec : { ...spec, command: () => ({ ...spec.command(), file: node.file }) }
  const runs = { bare: [] as number[], sandbox: [] as number[] }
  // Taking turns, so that a noisy moment on the shared machine hits both alike.
  for (let i = 0; i < SETTINGS.coldRuns; i++)
    for (const name of ['bare', 'sandbox'] as const) {
      const server = await start(ctx, onNode(SERVERS[name]))
      runs[name].push(server.readyMs)
      await server.stop()
    }
  return {
    node: node?.version ?? process.version,
    bareMs: round(median(runs.bare)),
    sandboxMs: round(median(runs.sandbox)),
  }
}

/**
 * The Node the image ships (the major of the Dockerfile's NODE_IMAGE), from the npm registry as
 * scripts/build-base-image.sh fetches it: a start's cost is mostly Node's own loading of modules,
 * which differs between majors. Undefined, with the reason logged, when it cannot be had.
 */
async function fetchImageNode(work: string): Promise<{ file: string; version: string } | undefined> {
  const major = /^ARG NODE_IMAGE=node:(\d+)/m.exec(await readFile(join(ROOT, 'Dockerfile'), 'utf8'))?.[1]
  if (major === undefined || major === process.versions.node.split('.')[0]) return undefined
  const dir = await mkdtemp(join(work, 'image-node-'))
  try {
    const packed = await run('npm', ['pack', '--silent', `node-linux-${process.arch}@${major}`], {
      cwd: dir,
      timeout: 300_000,
    })
    await run('tar', ['-xzf', packed.stdout.trim(), 'package/bin/node'], { cwd: dir })
    const file = join(dir, 'package/bin/node')
    return { file, version: (await run(file, ['--version'])).stdout.trim() }
  } catch (error) {
    log(`cold start on Node ${major}: on this Node instead (${(error as Error).message.split('\n')[0]})`)
    return undefined
  }
}

// ── raw: GET /v1/pets and durable creates under load, the servers taking turns ──────────────────

async function raw(ctx: Context) {
  const names: ServerName[] = ['bare', 'bareDurable', 'sandbox']
  const servers = new Map<ServerName, Awaited<ReturnType<typeof start>>>()
  try {
    for (const name of names) servers.set(name, await start(ctx, SERVERS[name]))
    const measure = async (name: ServerName, method: 'GET' | 'POST', path: string, warmUp: boolean) => {
      const server = servers.get(name)
      if (server === undefined) throw new Error(`${name} is not running`)
      const request = {
        url: `${server.origin}/v1${path}`,
        method,
        headers: method === 'GET' ? AUTH : { ...AUTH, 'Content-Type': 'application/json' },
        ...(method === 'POST' ? { body: NEW_PET } : {}),
        connections: SETTINGS.connections,
      }
      if (warmUp && SETTINGS.warmupSeconds > 0) await ctx.load.run({ ...request, seconds: SETTINGS.warmupSeconds })
      return ctx.load.run({ ...request, seconds: SETTINGS.seconds })
    }
    // Creates last: they grow the store, which the reads should not see.
    const cases = [
      { request: 'GET /v1/pets', method: 'GET', path: '/pets?limit=20', servers: ['bare', 'sandbox'] },
      { request: 'POST /v1/pets', method: 'POST', path: '/pets', servers: ['bareDurable', 'sandbox'] },
    ] as const
    const rows = []
    for (const { request, method, path, servers: measured } of cases) {
      const rounds = new Map<ServerName, LoadResult[]>()
      for (let i = 0; i < SETTINGS.rounds; i++)
        for (const name of measured)
          rounds.set(name, [...(rounds.get(name) ?? []), await measure(name, method, path, i === 0)])
      for (const [server, results] of rounds) {
        const row = {
          request,
          server,
          connections: SETTINGS.connections,
          requestsPerSecond: Math.round(median(results.map((r) => r.requestsPerSecond))),
          p50Ms: round(median(results.map((r) => r.p50Ms)), 3),
          p99Ms: round(median(results.map((r) => r.p99Ms)), 3),
          errors: results.reduce((sum, r) => sum + r.errors, 0),
        }
        log(`${request} on ${server}: ${row.requestsPerSecond} req/s, p50 ${row.p50Ms} ms, ${row.errors} errors`)
        rows.push(row)
      }
    }
    return rows
  } finally {
    for (const server of servers.values()) await server.stop()
  }
}

// ── tests: the typical test and the single steps a suite pays around each test ─────────────────

/** The snapshot a trace's namespace starts from (TRACE_NAMESPACE_BASELINE). */
const TRACE_BASELINE = 'trace-baseline'

async function tests(ctx: Context) {
  const server = await start(ctx, SERVERS.sandbox, {
    NAMESPACE_FROM_TRACE: 'on',
    TRACE_NAMESPACE_BASELINE: TRACE_BASELINE,
  })
  // The control client's own transport over one kept-alive connection: what a test worker holds.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const send = httpTransport(agent, 10_000)
  const client = new AnimalStoreControlClient(server.origin)
  const expect = async (
    status: number,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string,
  ) => {
    const answer = await send(method, url, headers, body)
    if (answer.status !== status) throw new Error(`${method} ${url}: ${answer.status}, not ${status}`)
    return answer.text
  }
  // Create, list with a filter, get, a journal check, a 503 fault on the next call, a reset.
  const typicalTest = async (scope: string): Promise<void> => {
    const ns = client.namespace(scope)
    const headers = { ...ns.apiHeaders, 'content-type': 'application/json' }
    const pet = JSON.parse(await expect(201, 'POST', `${ns.apiBaseUrl}/pets`, headers, NEW_PET)) as { id: number }
    await expect(200, 'GET', `${ns.apiBaseUrl}/pets?status=available&limit=10`, headers)
    await expect(200, 'GET', `${ns.apiBaseUrl}/pets/${pet.id}`, headers)
    const count = await ns.countRequests({ operationId: 'createPet' })
    if (count !== 1) throw new Error(`journal: ${count} createPet, not 1`)
    await ns.addFault({ operationId: 'listPets', status: 503, times: 1 })
    await expect(503, 'GET', `${ns.apiBaseUrl}/pets`, headers)
    await ns.reset()
  }
  const p50 = async (count: number, action: (i: number) => Promise<unknown>): Promise<number> => {
    const durations: number[] = []
    const deadline = performance.now() + 60_000
    for (let i = 0; i < count && performance.now() < deadline; i++) durations.push(await timed(() => action(i)))
    return round(median(durations))
  }
  try {
    for (let i = 0; i < SETTINGS.tests / 4; i++) await typicalTest('warm-up')
    const typicalTestMs = await p50(SETTINGS.tests, () => typicalTest('suite'))
    const busy = client.namespace('steps')
    const resetMs = await p50(SETTINGS.samples, () => busy.reset())
    const firstRequest = (headers: Record<string, string>) =>
      expect(200, 'GET', `${busy.apiBaseUrl}/pets?limit=1`, headers)
    const newNamespaceMs = await p50(SETTINGS.samples, (i) => firstRequest(client.namespace(`fresh-${i}`).apiHeaders))
    // A request that names no namespace, only its trace (as a service under test passes it on).
    await busy.createSnapshot(TRACE_BASELINE)
    const newTraceNamespaceMs = await p50(SETTINGS.samples, () =>
      firstRequest({
        authorization: `Bearer ${API_KEY}`,
        traceparent: `00-${randomUUID().replaceAll('-', '')}-00f067aa0ba902b7-01`,
      }),
    )
    return { typicalTestMs, resetMs, newNamespaceMs, newTraceNamespaceMs }
  } finally {
    agent.destroy()
    await server.stop()
  }
}

// ── namespaces: the RSS that idle namespaces hold ──────────────────────────────────────────────

async function namespaces(ctx: Context) {
  const server = await start(ctx, SERVERS.sandbox, { MAX_NAMESPACES: String(SETTINGS.namespaces * 2) })
  const client = new AnimalStoreControlClient(server.origin)
  try {
    // As many plain requests first: V8's first growth under traffic is no namespace's.
    for (let i = 0; i < SETTINGS.namespaces; i++)
      await fetch(`${server.origin}/v1/pets?limit=1`, { headers: AUTH }).then((res) => res.arrayBuffer())
    const before = (await rssMiB(server.child.pid)) ?? NaN
    for (let i = 0; i < SETTINGS.namespaces; i++) await client.namespace(`idle-${i}`).reset()
    const after = (await rssMiB(server.child.pid)) ?? NaN
    return { namespaces: SETTINGS.namespaces, perNamespaceKiB: round(((after - before) * 1024) / SETTINGS.namespaces) }
  } finally {
    await server.stop()
  }
}

// ── the run ────────────────────────────────────────────────────────────────────────────────────

const scenarios: Record<string, (ctx: Context) => Promise<unknown>> = {
  'cold-start': coldStart,
  raw,
  tests,
  namespaces,
  soak: (ctx) => soak({ core: ctx.core, seconds: SMOKE ? 3 : Number(process.env['SOAK_SECONDS'] ?? 150) }),
}

interface Guardrail {
  readonly name: string
  readonly limit: string
  readonly measured: number | undefined
  /** Undefined where the limit is "within 10% of before" and no earlier run left its figure. */
  readonly met: boolean | undefined
}

/** Each guardrail of docs/performance.md judged on this run; `before` is the last run's results. */
function judge(results: Record<string, any>, before: Record<string, any> | undefined): Guardrail[] {
  const rps = (r: Record<string, any> | undefined, request: string, server: ServerName): number | undefined =>
    r?.['raw']?.find((row: any) => row.request === request && row.server === server)?.requestsPerSecond
  const ratio = (a: number | undefined, b: number | undefined) => (a && b ? round(a / b) : undefined)
  const atMost = (name: string, limit: number, measured: number | undefined, unit = ' ms'): Guardrail => ({
    name,
    limit: `≤ ${limit}${unit}`,
    measured,
    met: measured === undefined ? undefined : measured <= limit,
  })
  const nearBefore = (
    name: string,
    higherIsBetter: boolean,
    pick: (r: Record<string, any> | undefined) => number | undefined,
  ) => {
    const measured = pick(results)
    const last = pick(before)
    const met =
      measured === undefined || last === undefined
        ? undefined
        : higherIsBetter
          ? measured >= 0.9 * last
          : measured <= 1.1 * last
    return { name, limit: `within 10% of before${last === undefined ? '' : ` (${last})`}`, measured, met }
  }
  const { tests: t, 'cold-start': cold } = results
  const getRatio = ratio(rps(results, 'GET /v1/pets', 'sandbox'), rps(results, 'GET /v1/pets', 'bare'))
  return [
    atMost('typical test p50, in process', 3, t?.typicalTestMs),
    atMost('reset p50', 1, t?.resetMs),
    atMost('first use of a namespace p50', 1, t?.newNamespaceMs),
    atMost('first request in a new trace namespace p50', 1, t?.newTraceNamespaceMs),
    {
      name: 'GET /v1/pets req/s vs bare',
      limit: '≥ 0.6×',
      measured: getRatio,
      met: getRatio === undefined ? undefined : getRatio >= 0.6,
    },
    nearBefore('durable creates req/s vs the durable bare', true, (r) =>
      ratio(rps(r, 'POST /v1/pets', 'sandbox'), rps(r, 'POST /v1/pets', 'bareDurable')),
    ),
    atMost(`cold start vs bare (Node ${cold?.node ?? '?'})`, 1.3, cold && ratio(cold.sandboxMs, cold.bareMs), '×'),
    nearBefore(
      `RSS per idle namespace (KiB, of ${SETTINGS.namespaces})`,
      false,
      (r) => r?.['namespaces']?.perNamespaceKiB,
    ),
  ].filter((row) => row.measured !== undefined)
}

async function main(): Promise<void> {
  if (!process.env['BENCH_FROM_SOURCE'] && !existsSync(join(ROOT, 'dist/cli.js')))
    throw new Error('dist/cli.js is missing: run npm run build first (npm run bench does)')
  const unknown = SCENARIOS.filter((name) => !(name in scenarios))
  if (unknown.length > 0)
    throw new Error(`unknown scenario ${unknown.join(', ')}: ${Object.keys(scenarios).join(', ')}`)
  const pinned = availableParallelism() >= 2 && (await commandExists('taskset'))
  if (pinned) await run('taskset', ['-p', '-c', '1', String(process.pid)])
  const work = await mkdtemp(join(tmpdir(), 'animal-store-bench-'))
  const ctx: Context = {
    work,
    core: pinned ? 0 : undefined,
    load: await findLoadGenerator({
      workDir: work,
      core: pinned ? 1 : undefined,
      ...(flags.load === 'autocannon' || flags.load === 'wrk' ? { preferred: flags.load } : {}),
    }),
  }
  // A run of chosen scenarios keeps its own file: latest.json stays the full run's, the next one's "before".
  const file = join(
    OUT_DIR,
    SMOKE ? 'smoke.json' : positionals.length > 0 ? `${SCENARIOS.join('+')}.json` : 'latest.json',
  )
  const before = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text)?.results,
    () => undefined,
  )
  const loadBefore = round(loadavg()[0] ?? NaN)
  const results: Record<string, unknown> = {}
  try {
    for (const name of SCENARIOS) {
      log(`${name}…`)
      results[name] = await (scenarios[name] as (ctx: Context) => Promise<unknown>)(ctx)
    }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  const guardrails = judge(results, before)
  const report = {
    date: new Date().toISOString(),
    mode: SMOKE ? 'smoke' : 'full',
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      node: process.version,
      loadAverage1m: { before: loadBefore, after: round(loadavg()[0] ?? NaN) },
    },
    loadGenerator: ctx.load.name,
    pinned,
    settings: SETTINGS,
    results,
    guardrails,
  }
  await mkdir(OUT_DIR, { recursive: true })
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`)
  console.table(guardrails.map((g) => ({ ...g, met: g.met === undefined ? '?' : g.met ? 'met' : 'MISSED' })))
  console.log(
    `load average (1 min) ${loadBefore} before, ${report.machine.loadAverage1m.after} after; ${ctx.load.name}; written to ${file}`,
  )
  if (results['soak'] !== undefined) {
    console.log('soak:', results['soak'])
    if (!(results['soak'] as { ok: boolean }).ok) process.exitCode = 1
  }
}

await main()
