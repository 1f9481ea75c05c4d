// npm run bench: the guardrails of docs/performance.md in one run, each ratio against a bare
// node:http server answering the same bytes (bench/bare-server.mjs). Servers run on core 0, the
// load generator and this script on core 1; 127.0.0.1 only, every loop bounded.
//
//   tsx bench/run.ts [--smoke] [--out DIR] [--before REF] [scenario ...]
//
// The scenarios, --before and --smoke: docs/performance.md. BENCH_FROM_SOURCE=1 runs src/ through tsx.
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
import { commandExists, findLoadGenerators, type LoadGenerators, type LoadResult } from './load.js'
import {
  API_KEY,
  AUTH,
  ROOT,
  cpuMs,
  SERVERS,
  rssMiB,
  sandboxAt,
  startServer,
  type ServerName,
  type ServerSpec,
  type Started,
} from './servers.js'
import { soak } from './soak.js'
import { awaited } from './await.js'
import { HAPROXY, startHaproxy } from '../scripts/lib/haproxy.js'
import { POSTGRES_BIN, startPostgres } from '../scripts/lib/postgres.js'
import { waitFor } from '../scripts/lib/processes.js'

const run = promisify(execFile)
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    before: { type: 'string' },
  },
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
const SCENARIOS =
  positionals.length > 0
    ? positionals
    : ['cold-start', 'raw', 'https', 'http2', 'tests', 'await', 'namespaces', 'data-file']
const OUT_DIR = flags.out ?? join(ROOT, 'bench/results')
const NEW_PET = JSON.stringify({ name: 'Bench', categoryId: 1, status: 'available' })

interface Context {
  readonly work: string
  readonly core: number | undefined
  readonly load: LoadGenerators
  /** The sandbox, then the earlier commit's when --before names one. */
  readonly sandboxes: readonly ServerSpec[]
}

/** A scenario's figures for the sandbox, with the earlier commit's under `before` when it runs too. */
async function onEach<T extends object>(ctx: Context, measure: (spec: ServerSpec) => Promise<T>) {
  const [after, before] = [await measure(SERVERS.sandbox), ctx.sandboxes[1] && (await measure(ctx.sandboxes[1]))]
  return before === undefined ? after : { ...after, before }
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

/**
 * The control client's own transport over one kept-alive connection, as a test worker holds it:
 * `expect` sends a request and returns its body, throwing on any status but the one given.
 */
function keptAlive() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const send = httpTransport({ agent, timeoutMs: 10_000 })
  return {
    async expect(status: number, method: string, url: string, headers: Record<string, string>, body?: string) {
      const answer = await send(method, url, headers, body)
      if (answer.status !== status) throw new Error(`${method} ${url}: ${answer.status}, not ${status}`)
      return answer.text
    },
    close: () => agent.destroy(),
  }
}

/**
 * A server with a fresh data file of its own in the run's folder, removed when it stops; with
 * `tls`, over HTTPS (its certificate files in that folder too).
 */
async function start(ctx: Context, spec: ServerSpec, env: Record<string, string> = {}, tls = false) {
  const dir = await mkdtemp(join(ctx.work, `${spec.name}-`))
  const started = await startServer(spec, {
    core: ctx.core,
    env: { DATA_FILE: join(dir, 'db.json'), ...env },
    ...(tls ? { tls: { dir } } : {}),
  })
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
  const runs = new Map<ServerName, number[]>()
  // Taking turns, so that a noisy moment on the shared machine hits each alike.
  for (let i = 0; i < SETTINGS.coldRuns; i++)
    for (const spec of [SERVERS.bare, ...ctx.sandboxes]) {
      const server = await start(ctx, onNode(spec))
      runs.set(spec.name, [...(runs.get(spec.name) ?? []), server.readyMs])
      await server.stop()
    }
  return {
    node: node?.version ?? process.version,
    ...Object.fromEntries([...runs].map(([name, ms]) => [`${name}Ms`, round(median(ms))])),
  } as { node: string; bareMs: number; sandboxMs: number; beforeMs?: number }
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

// ── raw, https, http2: requests under load, the servers taking turns ─────────────────────────────

type Protocol = 'HTTP/1.1' | 'HTTPS/1.1' | 'HTTP/2'

interface LoadCase {
  readonly request: 'GET /v1/pets' | 'POST /v1/pets'
  readonly path: string
  /** The servers' names, as `measureLoad`'s `origins` know them. */
  readonly servers: readonly string[]
  /** Spread over this many namespaces, each request the next; in the default one otherwise. */
  readonly namespaces?: number
}

/** Figures of a measured run besides the load generator's: started before it, read with its request count after it. */
type Probe = (server: string) => ((requests: number) => Record<string, number>) | undefined

/** Starts `specs` (over HTTPS unless `protocol` is plain HTTP/1.1) and measures the cases on them. */
async function underLoad(ctx: Context, protocol: Protocol, specs: readonly ServerSpec[], cases: readonly LoadCase[]) {
  const servers: Array<[ServerName, Started]> = []
  try {
    for (const spec of specs) servers.push([spec.name, await start(ctx, spec, {}, protocol !== 'HTTP/1.1')])
    return await measureLoad(ctx, protocol, new Map(servers.map(([name, server]) => [name, server.origin])), cases)
  } finally {
    for (const [, server] of servers) await server.stop()
  }
}

/** How often a smoke run measures a window that no request ended well in, or one failed in. */
const SMOKE_ATTEMPTS = 5

/**
 * Measures each case on each of its servers (by name, in `origins`) in SETTINGS.rounds rounds,
 * the servers taking turns (the first round after a warm-up): a row of medians for each.
 */
async function measureLoad(
  ctx: Context,
  protocol: Protocol,
  origins: ReadonlyMap<string, string>,
  cases: readonly LoadCase[],
  probe?: Probe,
) {
  const load = ctx.load[protocol === 'HTTP/2' ? 'HTTP/2' : 'HTTP/1.1']
  const measure = async (
    name: string,
    { request, path, namespaces }: LoadCase,
    warmUp: boolean,
  ): Promise<LoadResult & { figures: Record<string, number> }> => {
    const origin = origins.get(name)
    if (origin === undefined) throw new Error(`${name} is not running`)
    const method = request.startsWith('POST') ? 'POST' : 'GET'
    const run = {
      url: `${origin}/v1${path}`,
      method,
      headers: method === 'GET' ? AUTH : { ...AUTH, 'Content-Type': 'application/json' },
      ...(method === 'POST' ? { body: NEW_PET } : {}),
      // Each server's own: one that served them before (another balancer's replica) would still own them.
      ...(namespaces === undefined ? {} : { namespaces: { count: namespaces, prefix: `spread-${name}-` } }),
      connections: SETTINGS.connections,
    } as const
    if (warmUp && SETTINGS.warmupSeconds > 0) await load.run({ ...run, seconds: SETTINGS.warmupSeconds })
    for (let attempt = 1; ; attempt++) {
      const probed = probe?.(name)
      const result = await load.run({ ...run, seconds: SETTINGS.seconds })
      // A smoke window is a second: a loaded machine that stalls for one leaves it empty or failed.
      // It checks that the bench works, not the machine's pace, so such a window is measured again.
      const spoiled = result.requests === 0 || result.errors > 0
      if (!SMOKE || !spoiled || attempt === SMOKE_ATTEMPTS)
        return { ...result, figures: probed?.(result.requests) ?? {} }
      log(
        `${request} on ${name}: ${result.requests} answered, failures ${JSON.stringify(result.failures)}; measured again`,
      )
    }
  }
  const rows = []
  for (const loadCase of cases) {
    const rounds = new Map<string, Array<LoadResult & { figures: Record<string, number> }>>()
    for (let i = 0; i < SETTINGS.rounds; i++)
      for (const name of loadCase.servers)
        rounds.set(name, [...(rounds.get(name) ?? []), await measure(name, loadCase, i === 0)])
    for (const [server, results] of rounds) {
      const row = {
        request: loadCase.request,
        protocol,
        server,
        connections: SETTINGS.connections,
        ...(loadCase.namespaces === undefined ? {} : { namespaces: loadCase.namespaces }),
        requestsPerSecond: Math.round(median(results.map((r) => r.requestsPerSecond))),
        p50Ms: round(median(results.map((r) => r.p50Ms)), 3),
        p99Ms: round(median(results.map((r) => r.p99Ms)), 3),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
        failures: results.reduce<Record<string, number>>((sum, r) => {
          for (const [kind, n] of Object.entries(r.failures)) sum[kind] = (sum[kind] ?? 0) + n
          return sum
        }, {}),
        ...Object.fromEntries(
          Object.keys(results[0]?.figures ?? {}).map((key) => [
            key,
            round(median(results.map((r) => r.figures[key] ?? NaN)), 1),
          ]),
        ),
      }
      const spread = loadCase.namespaces === undefined ? '' : ` in ${loadCase.namespaces} namespaces`
      log(
        `${row.request}${spread} over ${protocol} on ${server}: ${row.requestsPerSecond} req/s, p50 ${row.p50Ms} ms, ${row.errors} errors${row.errors > 0 ? ` ${JSON.stringify(row.failures)}` : ''}`,
      )
      rows.push(row)
    }
  }
  return rows
}

const GET_PETS = { request: 'GET /v1/pets', path: '/pets?limit=20' } as const

/** GET /v1/pets against the bare server; durable creates against the bare server that syncs. */
function raw(ctx: Context) {
  const sandboxes = ctx.sandboxes.map((spec) => spec.name)
  return underLoad(
    ctx,
    'HTTP/1.1',
    [SERVERS.bare, SERVERS.bareDurable, ...ctx.sandboxes],
    // Creates last: they grow the store, which the reads should not see.
    [
      { ...GET_PETS, servers: ['bare', ...sandboxes] },
      { request: 'POST /v1/pets', path: '/pets', servers: ['bareDurable', ...sandboxes] },
    ],
  )
}

/**
 * GET /v1/pets over TLS against the bare server over the same protocol: each serves HTTP/2 and
 * HTTP/1.1 on one port, the sandbox with TLS=auto, the bare server a certificate made the same way.
 */
function secureGet(ctx: Context, protocol: 'HTTPS/1.1' | 'HTTP/2') {
  const specs = [SERVERS.bare, ...ctx.sandboxes].filter((spec) => {
    if (spec.tls === undefined) log(`${protocol}: ${spec.name} serves no HTTPS (a commit before TLS=auto), left out`)
    return spec.tls !== undefined
  })
  return underLoad(ctx, protocol, specs, [{ ...GET_PETS, servers: specs.map((spec) => spec.name) }])
}

// ── tests: the typical test and the single steps a suite pays around each test ─────────────────

/** The snapshot a trace's namespace starts from (TRACE_NAMESPACE_BASELINE). */
const TRACE_BASELINE = 'trace-baseline'

/** The typical test and its steps on `spec`, started with `env` (DATABASE_URL for the shared store). */
async function tests(ctx: Context, spec: ServerSpec, env: Record<string, string> = {}) {
  const server = await start(ctx, spec, {
    NAMESPACE_FROM_TRACE: 'on',
    TRACE_NAMESPACE_BASELINE: TRACE_BASELINE,
    ...env,
  })
  const { expect, close } = keptAlive()
  const client = new AnimalStoreControlClient(server.origin)
  // Create, list with a filter, get, a journal check, a 503 fault on the next call, a reset.
  const typicalTest = async (scope: string): Promise<void> => {
    const ns = client.namespace(scope)
    const headers = { ...ns.apiHeaders, 'content-type': 'application/json' }
    const pet = JSON.parse(await expect(201, 'POST', `${ns.apiBaseUrl}/pets`, headers, NEW_PET)) as { id: number }
    await expect(200, 'GET', `${ns.apiBaseUrl}/pets?status=available&limit=10`, headers)
    await expect(200, 'GET', `${ns.apiBaseUrl}/pets/${pet.id}`, headers)
    const count = await ns.countRequests({ operationId: 'createPet' })
    if (count !== 1) throw new Error(`journal: ${count} createPet, not 1`)
    await ns.api.POST('/faults', { body: { operationId: 'listPets', status: 503, times: 1, after: 0 } })
    await expect(503, 'GET', `${ns.apiBaseUrl}/pets`, headers)
    await ns.api.POST('/reset')
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
    const resetMs = await p50(SETTINGS.samples, () => busy.api.POST('/reset'))
    const firstRequest = (headers: Record<string, string>) =>
      expect(200, 'GET', `${busy.apiBaseUrl}/pets?limit=1`, headers)
    const newNamespaceMs = await p50(SETTINGS.samples, (i) => firstRequest(client.namespace(`fresh-${i}`).apiHeaders))
    // A request that names no namespace, only its trace (as a service under test passes it on).
    await client.api.POST('/snapshots', { body: { name: TRACE_BASELINE, namespace: busy.name } })
    const newTraceNamespaceMs = await p50(SETTINGS.samples, () =>
      firstRequest({
        authorization: `Bearer ${API_KEY}`,
        traceparent: `00-${randomUUID().replaceAll('-', '')}-00f067aa0ba902b7-01`,
      }),
    )
    return { typicalTestMs, resetMs, newNamespaceMs, newTraceNamespaceMs }
  } finally {
    close()
    await server.stop()
  }
}

// ── data-file: a test's own namespace on a data file, side by side with the memory store ───────

/** p50 and the spread (p10 to p90) of some durations, in ms. */
function spread(durations: readonly number[]) {
  const sorted = [...durations].sort((a, b) => a - b)
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN)
  return { p50: round(median(sorted)), p10: at(0.1), p90: at(0.9) }
}

/**
 * The namespace-per-test pattern: a test's first create in a namespace of its own, then the reset
 * of that namespace (it holds the pet), and its deletion as the test ends, on a sandbox with a data file and on one with
 * DATA_FILE=:memory:. The two take turns sample by sample, so that a loaded machine weighs on both alike.
 */
async function dataFile(ctx: Context, spec: ServerSpec) {
  const sides = {
    file: await start(ctx, spec),
    memory: await start(ctx, spec, { DATA_FILE: ':memory:' }),
  }
  const { expect, close } = keptAlive()
  const sample = async (origin: string, scope: string) => {
    const control = new AnimalStoreControlClient(origin)
    const ns = control.namespace(scope)
    const headers = { ...ns.apiHeaders, 'content-type': 'application/json' }
    const firstCreate = await timed(() => expect(201, 'POST', `${ns.apiBaseUrl}/pets`, headers, NEW_PET))
    const reset = await timed(() => ns.api.POST('/reset'))
    // As each test of the recipes ends: its namespace goes, its files with it.
    return {
      firstCreate,
      reset,
      deletion: await timed(() => control.api.DELETE('/namespaces/{name}', { params: { path: { name: scope } } })),
    }
  }
  const steps = ['firstCreate', 'reset', 'deletion'] as const
  const figures = { file: new Map<string, number[]>(), memory: new Map<string, number[]>() }
  try {
    const deadline = performance.now() + 120_000
    for (let i = 0; i < SETTINGS.samples * 4 + 20 && performance.now() < deadline; i++)
      for (const side of i % 2 ? (['memory', 'file'] as const) : (['file', 'memory'] as const)) {
        const sampled = await sample(sides[side].origin, `own-${i}`)
        // The first rounds warm both up (JIT, sockets) and are not counted.
        if (i < 20) continue
        for (const step of steps) figures[side].set(step, [...(figures[side].get(step) ?? []), sampled[step]])
      }
    const result: Record<string, unknown> = { samples: figures.file.get('reset')?.length ?? 0 }
    for (const step of steps) {
      const [file, memory] = [spread(figures.file.get(step) ?? []), spread(figures.memory.get(step) ?? [])]
      const differenceMs = round(file.p50 - memory.p50)
      result[`${step}Ms`] = { file, memory, differenceMs }
      log(
        `${step} on ${spec.name}: data file p50 ${file.p50} (${file.p10}–${file.p90}), memory p50 ${memory.p50} (${memory.p10}–${memory.p90}), +${differenceMs} ms`,
      )
    }
    return result
  } finally {
    close()
    await Promise.all([sides.file.stop(), sides.memory.stop()])
  }
}

// ── namespaces: the RSS that idle namespaces hold ──────────────────────────────────────────────

async function namespaces(ctx: Context, spec: ServerSpec) {
  const server = await start(ctx, spec, { MAX_NAMESPACES: String(SETTINGS.namespaces * 2) })
  const client = new AnimalStoreControlClient(server.origin)
  try {
    // As many plain requests first: V8's first growth under traffic is no namespace's.
    for (let i = 0; i < SETTINGS.namespaces; i++)
      await fetch(`${server.origin}/v1/pets?limit=1`, { headers: AUTH }).then((res) => res.arrayBuffer())
    const before = rssMiB(server.child.pid)
    for (let i = 0; i < SETTINGS.namespaces; i++) await client.namespace(`idle-${i}`).api.POST('/reset')
    const after = rssMiB(server.child.pid)
    return { namespaces: SETTINGS.namespaces, perNamespaceKiB: round(((after - before) * 1024) / SETTINGS.namespaces) }
  } finally {
    await server.stop()
  }
}

// ── shared: the PostgreSQL store against the data file, and replicas behind HAProxy ──────────────

/** The replicas the shared scenario puts behind HAProxy (another HAProxy fronts the first alone). */
const REPLICAS = 3

/**
 * In one run, every server on the server core: the sandbox on its data file and on PostgreSQL
 * (DATABASE_URL), then through HAProxy to one replica and to REPLICAS (in turn; in the spread
 * cases also each namespace to one replica). Reads and creates in the default namespace, then
 * spread over as many namespaces as connections, which a row lock per namespace does not
 * serialize; with the CPU each process spent per request, and the commits per WAL flush over it
 * all. Then the typical test on each store.
 */
async function shared(ctx: Context) {
  if (POSTGRES_BIN === undefined || !(await commandExists(HAPROXY)))
    throw new Error('the shared scenario needs PostgreSQL and HAProxy: apt-get install postgresql haproxy')
  const db = await startPostgres({ core: ctx.core })
  const running: Array<{ stop(): Promise<void> }> = []
  const keep = <T extends { stop(): Promise<void> }>(server: T): T => (running.push(server), server)
  try {
    const postgres = { DATABASE_URL: db.url }
    const file = keep(await start(ctx, SERVERS.sandbox))
    const replicas: Started[] = []
    for (let i = 0; i < REPLICAS; i++) replicas.push(keep(await start(ctx, SERVERS.sandbox, postgres)))
    const origins = replicas.map((replica) => replica.origin)
    const one = keep(await startHaproxy(origins.slice(0, 1), { core: ctx.core }))
    const all = keep(await startHaproxy(origins, { core: ctx.core }))
    const sticky = keep(await startHaproxy(origins, { core: ctx.core, balance: 'namespace' }))
    // Bounded: until a round of requests has reached every replica.
    await waitFor(
      async () => {
        const served = new Set<string | undefined>()
        for (let i = 0; i < REPLICAS; i++)
          served.add(all.servedBy(await fetch(`${all.url}/v1/pets?limit=1`, { headers: AUTH })))
        return served.size === REPLICAS && !served.has(undefined)
      },
      { what: `HAProxy to reach all ${REPLICAS} replicas` },
    )
    const targets = new Map([
      ['sandbox', file.origin],
      ['postgres', replicas[0]?.origin ?? ''],
      ['replicas1', one.url],
      [`replicas${REPLICAS}`, all.url],
      [`replicas${REPLICAS}ByNamespace`, sticky.url],
    ])
    const names = [...targets.keys()].slice(0, 4)
    const balanced = [...targets.keys()].slice(2)
    const spread = SETTINGS.connections
    // CPU per request (µs) of the sandboxes serving a run, of PostgreSQL and of HAProxy.
    const parts: Record<string, Record<string, Array<number | undefined>>> = {
      sandbox: { sandboxCpuUs: [file.child.pid] },
      postgres: { sandboxCpuUs: [replicas[0]?.child.pid], postgresCpuUs: [db.pid] },
      replicas1: { sandboxCpuUs: [replicas[0]?.child.pid], postgresCpuUs: [db.pid], haproxyCpuUs: [one.pid] },
      [`replicas${REPLICAS}`]: {
        sandboxCpuUs: replicas.map((replica) => replica.child.pid),
        postgresCpuUs: [db.pid],
        haproxyCpuUs: [all.pid],
      },
      [`replicas${REPLICAS}ByNamespace`]: {
        sandboxCpuUs: replicas.map((replica) => replica.child.pid),
        postgresCpuUs: [db.pid],
        haproxyCpuUs: [sticky.pid],
      },
    }
    const probe: Probe = (server) => {
      const used = (): Map<string, number> =>
        new Map(
          Object.entries(parts[server] ?? {}).map(([key, pids]) => [
            key,
            pids.reduce<number>((sum, pid) => sum + cpuMs(pid), 0),
          ]),
        )
      const before = used()
      return (requests) =>
        Object.fromEntries([...used()].map(([key, ms]) => [key, ((ms - (before.get(key) ?? NaN)) * 1000) / requests]))
    }
    // WAL flushes against commits over the load: how many commits one flush carries (group commit).
    await db.query('ALTER SYSTEM SET track_wal_io_timing = on')
    await db.query("SELECT pg_reload_conf(), pg_stat_reset(), pg_stat_reset_shared('wal')")
    const requests = await measureLoad(
      ctx,
      'HTTP/1.1',
      targets,
      [
        { ...GET_PETS, servers: names },
        { request: 'POST /v1/pets', path: '/pets', servers: names },
        { ...GET_PETS, servers: balanced, namespaces: spread },
        { request: 'POST /v1/pets', path: '/pets', servers: balanced, namespaces: spread },
      ],
      probe,
    )
    // What each balancer saw (a replica marked down by its checks) says why a run through it failed.
    for (const [name, balancer] of [
      ['replicas1', one],
      [`replicas${REPLICAS}`, all],
      [`replicas${REPLICAS}ByNamespace`, sticky],
    ] as const)
      if (balancer.output().trim() !== '') log(`HAProxy for ${name}:\n${balancer.output().trim()}`)
    const killed = await ownerKilled(all, replicas[0])
    log(
      `a replica killed with -9 while it served a namespace: a create there acknowledged again after ${killed.replacedMs} ms, ${killed.lost} of ${killed.acknowledged} acknowledged creates lost`,
    )
    while (running.length > 0) await running.pop()?.stop()
    // A backend reports its counts as it ends: once the replicas' have, they are all in.
    const others = "SELECT 1 FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
    await waitFor(async () => (await db.query(others)).length === 0, { what: "the replicas' connections to end" })
    const [wal] = await db.query<{ commits: string; syncs: string; syncMs: number }>(
      `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits,
              wal_sync AS syncs, wal_sync_time AS "syncMs" FROM pg_stat_wal`,
    )
    const commits = Number(wal?.commits)
    const syncs = Number(wal?.syncs)
    const walFlushes = {
      commits,
      flushes: syncs,
      commitsPerFlush: round(commits / syncs),
      flushMs: round((wal?.syncMs ?? NaN) / syncs, 3),
    }
    const typical = {
      sandbox: await tests(ctx, SERVERS.sandbox),
      postgres: await tests(ctx, SERVERS.sandbox, postgres),
    }
    const commitMs = await commitFloor(db.url)
    log(
      `the typical test p50: ${typical.sandbox.typicalTestMs} ms on the data file, ${typical.postgres.typicalTestMs} on PostgreSQL; ${walFlushes.commitsPerFlush} commits per WAL flush of ${walFlushes.flushMs} ms; a one-row commit from Node p50 ${commitMs} ms (the typical test waits for ${DURABLE_STEPS})`,
    )
    const figures = sharedFigures(requests, typical, killed)
    log(`the issue's figures, each against its bound: ${JSON.stringify(figures)}`)
    return { replicas: REPLICAS, requests, walFlushes, commitMs, ownerKilled: killed, tests: typical, figures }
  } finally {
    while (running.length > 0) await running.pop()?.stop()
    await db.close()
  }
}

/** The typical test's steps whose answer waits for a commit: the create, the fault armed, fired, the reset. */
const DURABLE_STEPS = 4

/**
 * The least a durable change on PostgreSQL waits, whatever it writes: one row updated and committed
 * on a connection kept open, p50 of sequential commits. Each of the typical test's DURABLE_STEPS
 * pays at least this more than on the data file, whose sync is the disk's.
 */
async function commitFloor(url: string): Promise<number> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(
      'CREATE TABLE bench_commit (id int PRIMARY KEY, n bigint); INSERT INTO bench_commit VALUES (1, 0)',
    )
    const durations: number[] = []
    for (let i = 0; i < SETTINGS.samples * 10; i++)
      durations.push(await timed(() => client.query('UPDATE bench_commit SET n = n + 1 WHERE id = 1')))
    await client.query('DROP TABLE bench_commit')
    return round(median(durations), 3)
  } finally {
    await client.end()
  }
}

interface SharedRow {
  readonly request: string
  readonly server: string
  readonly namespaces?: number
  readonly requestsPerSecond: number
  readonly sandboxCpuUs?: number
  readonly postgresCpuUs?: number
  readonly haproxyCpuUs?: number
}

/**
 * The shared mode's figures as ratios within this one run, each with its bound: the typical test
 * on PostgreSQL against the data file's (at most 1.3), reads and creates in one namespace (at least
 * 0.5 of the data file's req/s), the CPU per request summed over every process with REPLICAS
 * replicas in distinct namespaces against one replica's (at most 1.2), and the owner killed with -9.
 */
function sharedFigures(
  requests: readonly SharedRow[],
  typical: { sandbox: { typicalTestMs: number }; postgres: { typicalTestMs: number } },
  killed: { replacedMs: number; lost: number },
) {
  const row = (request: string, server: string, spread: boolean): SharedRow | undefined =>
    requests.find(
      (r) => r.request.startsWith(request) && r.server === server && (r.namespaces !== undefined) === spread,
    )
  const rate = (request: string) =>
    round(
      (row(request, 'postgres', false)?.requestsPerSecond ?? NaN) /
        (row(request, 'sandbox', false)?.requestsPerSecond ?? NaN),
      2,
    )
  const cpu = (r: SharedRow | undefined): number =>
    (r?.sandboxCpuUs ?? NaN) + (r?.postgresCpuUs ?? 0) + (r?.haproxyCpuUs ?? 0)
  const scaling = (request: string) =>
    round(cpu(row(request, `replicas${REPLICAS}ByNamespace`, true)) / cpu(row(request, 'replicas1', true)), 2)
  return {
    typicalTestPostgresToFile: {
      ratio: round(typical.postgres.typicalTestMs / typical.sandbox.typicalTestMs, 2),
      atMost: 1.3,
    },
    getPostgresToFile: { ratio: rate('GET'), atLeast: 0.5 },
    createPostgresToFile: { ratio: rate('POST'), atLeast: 0.5 },
    getCpuPerRequestReplicasToOne: { ratio: scaling('GET'), atMost: 1.2 },
    createCpuPerRequestReplicasToOne: { ratio: scaling('POST'), atMost: 1.2 },
    ownerKilled: { replacedMs: killed.replacedMs, atMostMs: 3_000, lost: killed.lost },
  }
}

/** At most this long after the kill for a create to be acknowledged again. */
const REPLACED_WITHIN_MS = 10_000

/**
 * A replica killed with -9 while it serves a namespace, made on it (so that it owns the namespace
 * where replicas own theirs): from the kill, how long until a create there is acknowledged again
 * through the balancer, and how many of the creates acknowledged before are gone.
 */
async function ownerKilled(balancer: { readonly url: string }, owner: Started | undefined) {
  if (owner === undefined) throw new Error('no replica to kill')
  const headers = { ...AUTH, 'Content-Type': 'application/json', 'x-sandbox-namespace': `killed-${randomUUID()}` }
  const create = async (origin: string): Promise<number | undefined> => {
    const init = { method: 'POST', headers, body: NEW_PET, signal: AbortSignal.timeout(5_000) }
    const answer = await fetch(`${origin}/v1/pets`, init).catch(() => undefined)
    if (answer?.status === 201) return ((await answer.json()) as { id: number }).id
    await answer?.body?.cancel()
    return undefined
  }
  const acknowledged: number[] = []
  const made = await create(owner.origin)
  if (made === undefined) throw new Error('the namespace of the replica to kill could not be made')
  acknowledged.push(made)
  // A second of creates through the balancer (which sends them to every replica), then the kill.
  for (const until = performance.now() + 1_000; performance.now() < until;) {
    const id = await create(balancer.url)
    if (id !== undefined) acknowledged.push(id)
  }
  owner.child.kill('SIGKILL')
  const killedAt = performance.now()
  let replacedMs = NaN
  let refused = 0
  while (Number.isNaN(replacedMs) && performance.now() - killedAt < REPLACED_WITHIN_MS) {
    const id = await create(balancer.url)
    if (id === undefined) {
      refused++
      await new Promise((resolve) => setTimeout(resolve, 20))
    } else {
      acknowledged.push(id)
      replacedMs = performance.now() - killedAt
    }
  }
  let lost = 0
  for (const id of acknowledged) {
    const answer = await fetch(`${balancer.url}/v1/pets/${id}`, { headers, signal: AbortSignal.timeout(5_000) })
    await answer.body?.cancel()
    if (answer.status !== 200) lost++
  }
  return { replacedMs: round(replacedMs), acknowledged: acknowledged.length, lost, refusedAfterKill: refused }
}

// ── the run ────────────────────────────────────────────────────────────────────────────────────

const scenarios: Record<string, (ctx: Context) => Promise<unknown>> = {
  'cold-start': coldStart,
  raw,
  https: (ctx) => secureGet(ctx, 'HTTPS/1.1'),
  http2: (ctx) => secureGet(ctx, 'HTTP/2'),
  tests: (ctx) => onEach(ctx, (spec) => tests(ctx, spec)),
  await: (ctx) => onEach(ctx, (spec) => awaited(() => start(ctx, spec), SMOKE ? 20 : 500)),
  namespaces: (ctx) => onEach(ctx, (spec) => namespaces(ctx, spec)),
  'data-file': (ctx) => onEach(ctx, (spec) => dataFile(ctx, spec)),
  shared,
  soak: (ctx) => soak({ core: ctx.core, seconds: SMOKE ? 3 : Number(process.env['SOAK_SECONDS'] ?? 150) }),
}

interface Guardrail {
  readonly name: string
  readonly limit: string
  readonly measured: number | undefined
  /** The same figure for the earlier commit (--before), or from the previous full run. */
  readonly before: number | undefined
  /** Undefined where the limit is "within 10% of before" and no before figure exists. */
  readonly met: boolean | undefined
}

type Figure = (results: Record<string, any> | undefined, server: 'sandbox' | 'before') => number | undefined

/**
 * Each guardrail of docs/performance.md judged on this run. "Before" is the earlier commit's
 * figure of this run when --before ran one, else the previous full run's (`previous`).
 */
function judge(results: Record<string, any>, previous: Record<string, any> | undefined): Guardrail[] {
  const rps = (
    r: Record<string, any> | undefined,
    request: string,
    server: ServerName,
    scenario = 'raw',
  ): number | undefined =>
    r?.[scenario]?.find((row: any) => row.request === request && row.server === server)?.requestsPerSecond
  const ratio = (a: number | undefined, b: number | undefined) => (a && b ? round(a / b) : undefined)
  const of =
    (scenario: string, key: string): Figure =>
    (r, server) =>
      server === 'sandbox' ? r?.[scenario]?.[key] : r?.[scenario]?.before?.[key]
  const cold: Figure = (r, server) => ratio(r?.['cold-start']?.[`${server}Ms`], r?.['cold-start']?.bareMs)
  // In each protocol's scenario, against the bare server over the same protocol.
  const getRatio =
    (scenario: 'raw' | 'https' | 'http2'): Figure =>
    (r, server) =>
      ratio(rps(r, 'GET /v1/pets', server, scenario), rps(r, 'GET /v1/pets', 'bare', scenario))
  const ownNamespace =
    (key: string): Figure =>
    (r, server) =>
      (server === 'sandbox' ? r?.['data-file'] : r?.['data-file']?.before)?.[key]?.differenceMs
  const durable: Figure = (r, server) => ratio(rps(r, 'POST /v1/pets', server), rps(r, 'POST /v1/pets', 'bareDurable'))
  const guardrail = (
    name: string,
    limit: string,
    meets: (now: number, before?: number) => boolean | undefined,
    figure: Figure,
  ): Guardrail => {
    const measured = figure(results, 'sandbox')
    const before = figure(results, 'before') ?? figure(previous, 'sandbox')
    return { name, limit, measured, before, met: measured === undefined ? undefined : meets(measured, before) }
  }
  const atMost = (limit: number, unit = ' ms') => [`≤ ${limit}${unit}`, (now: number) => now <= limit] as const
  const within10 = (higherIsBetter: boolean) =>
    [
      'within 10% of before',
      (now: number, before?: number) =>
        before === undefined ? undefined : higherIsBetter ? now >= 0.9 * before : now <= 1.1 * before,
    ] as const
  return [
    guardrail('typical test p50, in process', ...atMost(3), of('tests', 'typicalTestMs')),
    guardrail('reset p50', ...atMost(1), of('tests', 'resetMs')),
    guardrail('awaited call reported after its answer p99', ...atMost(5), of('await', 'reportedP99Ms')),
    guardrail('first use of a namespace p50', ...atMost(1), of('tests', 'newNamespaceMs')),
    guardrail('first request in a new trace namespace p50', ...atMost(1), of('tests', 'newTraceNamespaceMs')),
    guardrail(
      'first create in its own namespace, data file vs memory (ms more)',
      ...atMost(1),
      ownNamespace('firstCreateMs'),
    ),
    guardrail(
      'reset of a namespace holding data, data file vs memory (ms more)',
      ...atMost(1),
      ownNamespace('resetMs'),
    ),
    guardrail('GET /v1/pets req/s vs bare', '≥ 0.6×', (now) => now >= 0.6, getRatio('raw')),
    guardrail('GET /v1/pets over HTTPS/1.1 req/s vs bare', '≥ 0.6×', (now) => now >= 0.6, getRatio('https')),
    guardrail('GET /v1/pets over HTTP/2 req/s vs bare', '≥ 0.6×', (now) => now >= 0.6, getRatio('http2')),
    guardrail('durable creates req/s vs the durable bare', ...within10(true), durable),
    guardrail(`cold start vs bare (Node ${results['cold-start']?.node ?? '?'})`, ...atMost(1.3, '×'), cold),
    guardrail(
      `RSS per idle namespace (KiB, of ${SETTINGS.namespaces})`,
      ...within10(false),
      of('namespaces', 'perNamespaceKiB'),
    ),
  ].filter((row) => row.measured !== undefined)
}

/** A built checkout of `ref`: the folder itself when it holds one, else a worktree of the ref built in `work`. */
async function checkout(ref: string, work: string): Promise<string> {
  if (existsSync(join(ref, process.env['BENCH_FROM_SOURCE'] ? 'src/cli.ts' : 'dist/cli.js'))) return ref
  const dir = join(work, 'before')
  log(`before: checking out and building ${ref}…`)
  await run('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, ref])
  // npm ci builds dist/ (the prepare script), as on a fresh clone.
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, timeout: 600_000 })
  return dir
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
  const beforeRoot = flags.before === undefined ? undefined : await checkout(flags.before, work)
  const ctx: Context = {
    work,
    sandboxes: [SERVERS.sandbox, ...(beforeRoot === undefined ? [] : [sandboxAt(beforeRoot, 'before')])],
    core: pinned ? 0 : undefined,
    load: await findLoadGenerators(work, pinned ? 1 : undefined),
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
    if (beforeRoot?.startsWith(work)) await run('git', ['-C', ROOT, 'worktree', 'remove', '--force', beforeRoot])
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
    loadGenerators: Object.fromEntries(Object.entries(ctx.load).map(([protocol, load]) => [protocol, load.name])),
    pinned,
    settings: SETTINGS,
    results,
    guardrails,
  }
  await mkdir(OUT_DIR, { recursive: true })
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`)
  console.table(guardrails.map((g) => ({ ...g, met: g.met === undefined ? '?' : g.met ? 'met' : 'MISSED' })))
  console.log(
    `load average (1 min) ${loadBefore} before, ${report.machine.loadAverage1m.after} after; ${Object.values(
      report.loadGenerators,
    ).join(' and ')}; written to ${file}`,
  )
  if (results['soak'] !== undefined) {
    console.log('soak:', results['soak'])
    if (!(results['soak'] as { ok: boolean }).ok) process.exitCode = 1
  }
}

await main()
