// The cost of one test: what a suite pays the sandbox around each of its tests, against WireMock
// doing the same work in the same run. A suite of 2,000 typical tests is shared out among N
// workers (1, 4, 16), each running its tests one after the other in the worker's own namespace:
// create, list with a filter, get, a journal check by operationId, a 503 fault on the next call,
// reset (and, beside it, each test in a new namespace). WireMock has no namespaces: each test
// registers its own stubs (scoped by a header), calls them, counts its requests and removes what
// it added. Every target gets the same client: node:http over one kept-alive connection per
// worker (and, for one worker, fetch beside it). A second view times single steps: reset, first
// use of a namespace (and of a trace's, NAMESPACE_FROM_TRACE from a snapshot), seeded resets and journal queries at 10,000 entries (a page and a count of
// the fifth that match, and a query that matches a single entry).
//
//   tsx bench/suite.ts [--smoke] [--steps-only] [--targets process,memory,container,wiremock] [--out DIR] [--profile DIR]
//
// --steps-only times the single steps alone, without the suites (a quick look at one step).
//
// --profile DIR starts the sandbox processes under `node --cpu-prof` and leaves one .cpuprofile per
// process in DIR (summarised by `tsx bench/cpu-profile.ts DIR/*.cpuprofile`).
//
// Every loop is bounded in count and in time; everything talks to 127.0.0.1.
import { randomUUID } from 'node:crypto'
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { homedir, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { AnimalStoreControlClient, type NamespaceControl } from '../modules/node/src/client.js'
import { HttpClient, type Answer } from './http-client.js'
import { ROOT, SERVERS, freePort, rssMiB, startServer, type Started } from './servers.js'

const run = promisify(execFile)

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    'steps-only': { type: 'boolean', default: false },
    targets: { type: 'string', default: 'process,memory,container,wiremock' },
    out: { type: 'string' },
    profile: { type: 'string' },
  },
})
const SMOKE = flags.smoke === true
const STEPS_ONLY = flags['steps-only'] === true
/** The snapshot a trace's namespace starts from in the sandboxes run as processes (TRACE_NAMESPACE_BASELINE). */
const TRACE_BASELINE = 'trace-baseline'
const TRACE_MODE = { NAMESPACE_FROM_TRACE: 'on', TRACE_NAMESPACE_BASELINE: TRACE_BASELINE }
const SETTINGS = SMOKE
  ? {
      workers: [1, 4],
      suiteTests: 8,
      warmupTests: 2,
      targetWarmupTests: 5,
      stepSamples: 5,
      journalEntries: 200,
      timeLimitMs: 20_000,
    }
  : {
      workers: [1, 4, 16],
      /** One suite: its tests shared out among the workers (a suite of the size the cost-of-one-test issue names). */
      suiteTests: 2_000,
      warmupTests: 20,
      /** Run once per target before anything is measured: JIT (V8's, the JVM's) and caches warm. */
      targetWarmupTests: 500,
      stepSamples: 50,
      journalEntries: 10_000,
      timeLimitMs: 60_000,
    }
const TARGETS = new Set((flags.targets ?? '').split(',').filter(Boolean))
const OUT_DIR = flags.out ?? join(ROOT, 'bench/results')
const IMAGE = process.env['ANIMAL_STORE_IMAGE'] ?? 'animal-store-sandbox:local'
const DOCKER = process.env['DOCKER'] ?? '/usr/bin/docker'
/** Node's options for the sandbox processes: a CPU profile each, when asked for. */
const NODE_ARGS = flags.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${flags.profile}`]
const WIREMOCK_VERSION = '3.13.2'
const API_KEY = 'sandbox-api-key'
/** The sandboxes keep as many journal entries as the journal step sends (the default keeps 1,000). */
const JOURNAL_SIZE = String(SETTINGS.journalEntries)
const NEW_PET = { name: 'Suite', categoryId: 1, status: 'available' }

/**
 * One typical test against a target, in the namespace `scope` (WireMock: its stubs and requests
 * are scoped by a header of that value), sending with `send`; resolves when the test is done.
 */
type TypicalTest = (scope: string, send: Send) => Promise<void>

interface Summary {
  readonly p50Ms: number
  readonly p99Ms: number
  readonly samples: number
}

function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
  return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), samples: sorted.length }
}

const round = (ms: number): number => Math.round(ms * 100) / 100

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await action()
  return performance.now() - started
}

/** Fails on an unexpected status; the body, parsed, otherwise. */
async function expect(answer: Promise<Answer>, status: number, what: string): Promise<unknown> {
  const { status: got, text } = await answer
  if (got !== status) throw new Error(`${what}: expected ${status}, got ${got}: ${text.slice(0, 300)}`)
  return text === '' ? undefined : JSON.parse(text)
}

// --- the client a test sends with -------------------------------------------------------------

/**
 * node:http over one kept-alive connection per worker (bench/http-client.ts), the same for every
 * target; or fetch, as many suites send, shown beside it for one worker.
 */
type ClientKind = 'node:http' | 'fetch'
type Send = HttpClient['send']

const fetchSend: Send = async (method, url, headers = {}, body) => {
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) })
  return { status: res.status, text: await res.text() }
}

// --- the sandbox's typical test ---------------------------------------------------------------

/** The test's control calls go through `client` (its default transport, or fetch for the fetch view). */
function sandboxTest(client: AnimalStoreControlClient): TypicalTest {
  return async (scope, send) => {
    const ns: NamespaceControl = client.namespace(scope)
    const headers = { ...ns.apiHeaders, 'content-type': 'application/json' }
    const pet = (await expect(
      send('POST', `${ns.apiBaseUrl}/pets`, headers, JSON.stringify(NEW_PET)),
      201,
      'createPet',
    )) as { id: number }
    await expect(send('GET', `${ns.apiBaseUrl}/pets?status=available&limit=10`, headers), 200, 'listPets')
    await expect(send('GET', `${ns.apiBaseUrl}/pets/${pet.id}`, headers), 200, 'getPet')
    const count = await ns.countRequests({ operationId: 'createPet' })
    if (count !== 1) throw new Error(`journal: expected 1 createPet, got ${count}`)
    await ns.addFault({ operationId: 'listPets', status: 503, times: 1 })
    await expect(send('GET', `${ns.apiBaseUrl}/pets`, headers), 503, 'listPets under a fault')
    await ns.reset()
  }
}

// --- WireMock's typical test: the same calls, with stubs instead of a namespace ---------------

function wiremockTest(origin: string): TypicalTest {
  return async (scope, send) => {
    const admin = (path: string, method: string, body?: unknown): Promise<Answer> =>
      send(
        method,
        `${origin}/__admin${path}`,
        { 'content-type': 'application/json' },
        body === undefined ? undefined : JSON.stringify(body),
      )
    const scoped = { 'X-Test': { equalTo: scope } }
    const headers = { 'x-test': scope, authorization: `Bearer ${API_KEY}` }
    const json = { 'Content-Type': 'application/json' }
    const stub = async (request: object, response: object, priority = 5): Promise<string> => {
      const created = (await expect(
        admin('/mappings', 'POST', { priority, request: { ...request, headers: scoped }, response }),
        201,
        'register a stub',
      )) as { id: string }
      return created.id
    }
    const ids = [
      await stub(
        { method: 'POST', urlPath: '/v1/pets' },
        { status: 201, headers: json, jsonBody: { id: 61, ...NEW_PET } },
      ),
      await stub(
        { method: 'GET', urlPath: '/v1/pets', queryParameters: { status: { equalTo: 'available' } } },
        { status: 200, headers: json, jsonBody: [{ id: 61, ...NEW_PET }] },
      ),
      await stub({ method: 'GET', urlPath: '/v1/pets/61' }, { status: 200, headers: json, jsonBody: { id: 61 } }),
    ]
    const posted = { ...headers, 'content-type': 'application/json' }
    await expect(send('POST', `${origin}/v1/pets`, posted, JSON.stringify(NEW_PET)), 201, 'create')
    await expect(send('GET', `${origin}/v1/pets?status=available&limit=10`, headers), 200, 'list')
    await expect(send('GET', `${origin}/v1/pets/61`, headers), 200, 'get')
    const { count } = (await expect(
      admin('/requests/count', 'POST', { method: 'POST', url: '/v1/pets', headers: scoped }),
      200,
      'count',
    )) as { count: number }
    if (count !== 1) throw new Error(`WireMock journal: expected 1 create, got ${count}`)
    // The fault on the next call: a stub above the others, removed once it has answered.
    const fault = await stub({ method: 'GET', urlPath: '/v1/pets' }, { status: 503 }, 1)
    await expect(send('GET', `${origin}/v1/pets`, headers), 503, 'list under a fault')
    // Its reset: what this test added, and nothing of the other workers' tests.
    for (const id of [...ids, fault]) await expect(admin(`/mappings/${id}`, 'DELETE'), 200, 'remove a stub')
    await expect(admin('/requests/remove', 'POST', { headers: scoped }), 200, 'remove its requests')
  }
}

// --- running the workload ---------------------------------------------------------------------

/**
 * Where a worker's tests run: in the worker's own namespace, each test ending with its reset (the
 * workload of the cost-of-one-test issue), or each in a namespace of its own (as the recipes in
 * examples/ do: a new namespace per test, never used again).
 */
type NamespacePer = 'worker' | 'test'

interface SuiteRow {
  readonly target: string
  readonly client: ClientKind
  readonly namespacePer: NamespacePer
  readonly workers: number
  readonly tests: number
  readonly testsPerSecond: number
  readonly test: Summary
}

/** Tells the namespaces of one suite run from those of the others. */
let suiteRuns = 0

async function runSuite(
  target: Target,
  {
    client,
    namespacePer,
    workers,
    tests = Math.ceil(SETTINGS.suiteTests / workers),
  }: { client: ClientKind; namespacePer: NamespacePer; workers: number; tests?: number },
): Promise<SuiteRow> {
  const typicalTest = target.test(client)
  const run = ++suiteRuns
  const scope = (worker: number, test: number): string =>
    namespacePer === 'worker' ? `r${run}-w${worker}` : `r${run}-w${worker}-t${test}`
  const clients = Array.from({ length: workers }, () => (client === 'fetch' ? undefined : new HttpClient()))
  const sends = clients.map((http) => (http === undefined ? fetchSend : http.send.bind(http)))
  const send = (worker: number): Send => sends[worker] as Send
  // A warm-up of each worker's first tests (connections, JIT), not counted.
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let test = 0; test < SETTINGS.warmupTests; test++) await typicalTest(scope(worker, -1 - test), send(worker))
    }),
  )
  const durations: number[] = []
  const deadline = performance.now() + SETTINGS.timeLimitMs
  const started = performance.now()
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let test = 0; test < tests && performance.now() < deadline; test++)
        durations.push(await timed(() => typicalTest(scope(worker, test), send(worker))))
    }),
  )
  const seconds = (performance.now() - started) / 1000
  for (const http of clients) http?.close()
  return {
    target: target.name,
    client,
    namespacePer,
    workers,
    tests: durations.length,
    testsPerSecond: Math.round(durations.length / seconds),
    test: summarize(durations),
  }
}

// --- single steps -----------------------------------------------------------------------------

interface StepRow {
  readonly target: string
  readonly step: string
  readonly summary: Summary
}

async function sandboxSteps(
  target: string,
  client: AnimalStoreControlClient,
  firstSeeded: number,
  traceMode: boolean,
): Promise<StepRow[]> {
  const samples = async (action: (i: number) => Promise<unknown>): Promise<Summary> => {
    const durations: number[] = []
    for (let i = 0; i < SETTINGS.stepSamples; i++) durations.push(await timed(() => action(i)))
    return summarize(durations)
  }
  const steps: StepRow[] = [
    { target, step: 'seeded reset {seed, count: 1000}, first after start', summary: summarize([firstSeeded]) },
  ]
  const busy = client.namespace('steps')
  await busy.reset()
  steps.push({ target, step: 'reset', summary: await samples(() => busy.reset()) })
  steps.push({
    target,
    step: 'first request in a new namespace',
    summary: await samples((i) =>
      fetch(`${busy.apiBaseUrl}/pets?limit=1`, { headers: client.namespace(`fresh-${i}`).apiHeaders }).then((r) =>
        r.arrayBuffer(),
      ),
    ),
  })
  // A request that names no namespace, only its trace (as a service under test passes it on).
  const traces = Array.from({ length: SETTINGS.stepSamples }, () => randomUUID().replaceAll('-', ''))
  if (traceMode) {
    await busy.createSnapshot(TRACE_BASELINE)
    steps.push({
      target,
      step: 'first request in a new trace namespace, from a snapshot',
      summary: await samples((i) =>
        fetch(`${busy.apiBaseUrl}/pets?limit=1`, {
          headers: { authorization: `Bearer ${API_KEY}`, traceparent: `00-${traces[i]}-00f067aa0ba902b7-01` },
        }).then((r) => r.arrayBuffer()),
      ),
    })
  }
  steps.push({
    target,
    step: 'seeded reset {seed, count: 1000}',
    summary: await samples((i) => busy.reset({ seed: i + 1, count: 1000 })),
  })
  // A suite that seeds every test the same way: the pets the last of those resets made are kept.
  steps.push({
    target,
    step: 'seeded reset {seed, count: 1000}, the same seed again',
    summary: await samples(() => busy.reset({ seed: SETTINGS.stepSamples, count: 1000 })),
  })
  // The journal query at a full journal: entries of several operations, asked for one.
  const journal = client.namespace('journal')
  await journal.reset()
  for (let i = 0; i < SETTINGS.journalEntries; i += 50)
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        fetch(`${journal.apiBaseUrl}/pets${(i + j) % 5 === 0 ? '/1' : '?limit=1'}`, {
          headers: journal.apiHeaders,
        }).then((r) => r.arrayBuffer()),
      ),
    )
  // A fifth of them match: the first page (the default 100 entries) and the count alone (limit=0).
  steps.push({
    target,
    step: `journal query by operationId at ${SETTINGS.journalEntries} entries, first page`,
    summary: await samples(() => journal.listRequests({ operationId: 'getPet' })),
  })
  steps.push({
    target,
    step: `journal count by operationId at ${SETTINGS.journalEntries} entries`,
    summary: await samples(() => journal.countRequests({ operationId: 'getPet' })),
  })
  // As a test checks its one create among the reads: the filter's cost, with an answer of one entry.
  await fetch(`${journal.apiBaseUrl}/pets`, {
    method: 'POST',
    headers: { ...journal.apiHeaders, 'content-type': 'application/json' },
    body: JSON.stringify(NEW_PET),
  }).then((r) => r.arrayBuffer())
  steps.push({
    target,
    step: `journal query by operationId matching 1 of ${SETTINGS.journalEntries} entries`,
    summary: await samples(() => journal.listRequests({ operationId: 'createPet' })),
  })
  for (let i = 0; i < SETTINGS.stepSamples; i++) await client.deleteNamespace(`fresh-${i}`).catch(() => undefined)
  if (traceMode) for (const trace of traces) await client.deleteNamespace(trace).catch(() => undefined)
  return steps
}

// --- the targets ------------------------------------------------------------------------------

interface Target {
  readonly name: string
  /** The typical test, its control calls sent the way `client` says. */
  readonly test: (client: ClientKind) => TypicalTest
  readonly steps?: () => Promise<StepRow[]>
  readonly rssMiB: () => Promise<number | undefined>
  stop(): Promise<void>
}

async function sandboxTarget(
  name: string,
  origin: string,
  pid: () => Promise<number | undefined>,
  stop: () => Promise<void>,
  adminToken?: string,
  traceMode = false,
): Promise<Target> {
  const client = new AnimalStoreControlClient(origin, { adminToken })
  const firstSeeded = await timed(() => client.namespace('first-seeded').reset({ seed: 1, count: 1000 }))
  return {
    name,
    test: (kind) =>
      sandboxTest(kind === 'fetch' ? new AnimalStoreControlClient(origin, { adminToken, fetch }) : client),
    steps: () => sandboxSteps(name, client, firstSeeded, traceMode),
    rssMiB: async () => rssMiB(await pid()),
    stop,
  }
}

/** The sandbox as a suite without Docker runs it, keeping its data in memory (no disk, no fsync). */
async function memoryTarget(): Promise<Target> {
  const server: Started = await startServer(SERVERS.sandbox, {
    core: undefined,
    env: { DATA_FILE: ':memory:', JOURNAL_SIZE, ...TRACE_MODE },
    nodeArgs: NODE_ARGS,
  })
  return sandboxTarget(
    'sandbox, process (in memory)',
    server.origin,
    async () => server.child.pid,
    () => server.stop(),
    undefined,
    true,
  )
}

async function processTarget(): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), 'suite-bench-'))
  const server: Started = await startServer(SERVERS.sandbox, {
    core: undefined,
    env: { DATA_FILE: join(dir, 'db.json'), JOURNAL_SIZE, ...TRACE_MODE },
    nodeArgs: NODE_ARGS,
  })
  return sandboxTarget(
    'sandbox, process (data file)',
    server.origin,
    async () => server.child.pid,
    async () => {
      await server.stop()
      await rm(dir, { recursive: true, force: true })
    },
    undefined,
    true,
  )
}

async function containerTarget(): Promise<Target> {
  // The image listens beyond loopback, where the control API needs a token of its own.
  const adminToken = randomUUID()
  const { stdout } = await run(DOCKER, [
    'run',
    '-d',
    '--rm',
    '-e',
    `JOURNAL_SIZE=${JOURNAL_SIZE}`,
    '-e',
    `ADMIN_TOKEN=${adminToken}`,
    '-p',
    '127.0.0.1::4010',
    IMAGE,
  ])
  const id = stdout.trim()
  const stop = async (): Promise<void> => void (await run(DOCKER, ['rm', '-f', id]).catch(() => undefined))
  try {
    const { stdout: port } = await run(DOCKER, ['port', id, '4010/tcp'])
    const origin = `http://127.0.0.1:${port.trim().split(':').pop()}`
    await waitForStatus(`${origin}/healthz`, 30_000)
    const pid = async (): Promise<number | undefined> =>
      Number((await run(DOCKER, ['inspect', '-f', '{{.State.Pid}}', id])).stdout.trim()) || undefined
    return await sandboxTarget('sandbox, container (data volume)', origin, pid, stop, adminToken)
  } catch (error) {
    await stop()
    throw error
  }
}

/** WireMock's standalone jar from Maven Central, through Maven (its cache, its mirrors). */
async function wiremockJar(): Promise<string> {
  const dir = join(homedir(), '.cache/animal-store-sandbox/wiremock')
  const jar = join(dir, `wiremock-standalone-${WIREMOCK_VERSION}.jar`)
  if (existsSync(jar)) return jar
  await mkdir(dir, { recursive: true })
  await run(
    'mvn',
    [
      '-q',
      '-B',
      'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy',
      `-Dartifact=org.wiremock:wiremock-standalone:${WIREMOCK_VERSION}`,
      `-DoutputDirectory=${dir}`,
    ],
    { timeout: 5 * 60_000 },
  )
  return jar
}

async function wiremockTarget(): Promise<Target> {
  const jar = await wiremockJar()
  const port = await freePort()
  const child = spawn(
    'java',
    ['-jar', jar, '--port', String(port), '--bind-address', '127.0.0.1', '--disable-banner'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const origin = `http://127.0.0.1:${port}`
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }
  try {
    await waitForStatus(
      `${origin}/__admin/health`,
      60_000,
      () => child.exitCode !== null,
      () => stderr,
    )
  } catch (error) {
    await stop()
    throw error
  }
  return {
    name: `WireMock ${WIREMOCK_VERSION}`,
    test: () => wiremockTest(origin),
    rssMiB: () => rssMiB(child.pid),
    stop,
  }
}

async function waitForStatus(
  url: string,
  timeoutMs: number,
  gone = (): boolean => false,
  why = (): string => '',
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    if (gone()) throw new Error(`${url}: the server exited: ${why()}`)
    const ok = await fetch(url).then(
      (res) => res.arrayBuffer().then(() => res.ok),
      () => false,
    )
    if (ok) return
    if (performance.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms: ${why()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function dockerAnswers(): Promise<boolean> {
  return run(DOCKER, ['info']).then(
    () => true,
    () => false,
  )
}

// --- main -------------------------------------------------------------------------------------

const starters: Record<string, () => Promise<Target>> = {
  process: processTarget,
  memory: memoryTarget,
  container: containerTarget,
  wiremock: wiremockTarget,
}
const suites: SuiteRow[] = []
const steps: StepRow[] = []
const memory: Array<{ target: string; rssMiB: number | undefined }> = []
const loadBefore = loadavg()[0]
for (const name of ['process', 'memory', 'container', 'wiremock']) {
  if (!TARGETS.has(name)) continue
  if (name === 'container' && !(await dockerAnswers())) {
    console.log(`container: skipped, no Docker engine answers (${DOCKER} info); the image is ${IMAGE}`)
    continue
  }
  const target = await (starters[name] as () => Promise<Target>)()
  try {
    if (STEPS_ONLY) {
      if (target.steps) steps.push(...(await target.steps()))
      continue
    }
    await runSuite(target, {
      client: 'node:http',
      namespacePer: 'worker',
      workers: 1,
      tests: SETTINGS.targetWarmupTests,
    })
    for (const workers of SETTINGS.workers)
      suites.push(await runSuite(target, { client: 'node:http', namespacePer: 'worker', workers }))
    // Beside it: fetch as the client, and a new namespace per test.
    suites.push(await runSuite(target, { client: 'fetch', namespacePer: 'worker', workers: 1 }))
    for (const workers of [1, SETTINGS.workers.at(-1) ?? 1])
      suites.push(await runSuite(target, { client: 'node:http', namespacePer: 'test', workers }))
    if (target.steps) steps.push(...(await target.steps()))
    memory.push({ target: target.name, rssMiB: await target.rssMiB() })
  } finally {
    await target.stop()
  }
}

const wiremock = suites.filter((row) => row.target.startsWith('WireMock'))
const ratios = suites
  .filter((row) => !row.target.startsWith('WireMock'))
  .map((row) => {
    const peer = wiremock.find(
      (w) => w.workers === row.workers && w.client === row.client && w.namespacePer === row.namespacePer,
    )
    return {
      target: row.target,
      client: row.client,
      namespacePer: row.namespacePer,
      workers: row.workers,
      testsPerSecondVsWireMock: peer ? round(row.testsPerSecond / peer.testsPerSecond) : undefined,
    }
  })
/** The targets, judged on this run's figures (a target whose rows did not run is left out). */
const isHeadline = (row: { client: ClientKind; namespacePer: NamespacePer }): boolean =>
  row.client === 'node:http' && row.namespacePer === 'worker'
const processName = 'sandbox, process (data file)'
/** The step named `name`, or whose name starts with `name` and a space (the journal query names its size). */
const step = (name: string): Summary | undefined =>
  steps.find((row) => row.target === processName && (row.step === name || row.step.startsWith(`${name} `)))?.summary
const targets = [
  {
    target: 'typical test, 1 worker, p50 <= 3 ms',
    value: suites.find((r) => r.target === processName && isHeadline(r) && r.workers === 1)?.test.p50Ms,
    limit: 3,
  },
  { target: 'reset p50 <= 1 ms', value: step('reset')?.p50Ms, limit: 1 },
  { target: 'first use of a namespace p50 <= 1 ms', value: step('first request in a new namespace')?.p50Ms, limit: 1 },
  {
    target: "first use of a trace's namespace, from a snapshot, p50 <= 1 ms",
    value: step('first request in a new trace namespace, from a snapshot')?.p50Ms,
    limit: 1,
  },
  {
    target: 'seeded reset of 1,000 pets p50 <= 10 ms',
    value: step('seeded reset {seed, count: 1000}')?.p50Ms,
    limit: 10,
  },
  {
    target: 'seeded reset of 1,000 pets, first after start <= 10 ms',
    value: step('seeded reset {seed, count: 1000}, first after start')?.p50Ms,
    limit: 10,
  },
  { target: 'journal query p50 <= 1 ms', value: step('journal query')?.p50Ms, limit: 1 },
  { target: 'journal count p50 <= 1 ms', value: step('journal count')?.p50Ms, limit: 1 },
]
  .filter((row) => row.value !== undefined)
  .map((row) => ({ ...row, met: (row.value ?? Infinity) <= row.limit }))
const versus16 = ratios.find(
  (row) => row.target === processName && isHeadline(row) && row.workers === 16,
)?.testsPerSecondVsWireMock
if (versus16 !== undefined)
  targets.push({ target: '16 workers: tests/s >= 10x WireMock', value: versus16, limit: 10, met: versus16 >= 10 })
const result = {
  smoke: SMOKE,
  settings: SETTINGS,
  machine: { loadAverage1mBefore: round(loadBefore ?? NaN), loadAverage1mAfter: round(loadavg()[0] ?? NaN) },
  suites,
  ratios,
  steps,
  memory,
  targets,
}
await mkdir(OUT_DIR, { recursive: true })
const file = join(OUT_DIR, SMOKE ? 'suite-smoke.json' : 'suite.json')
await writeFile(file, `${JSON.stringify(result, null, 2)}\n`)

console.log('\nThe cost of one test (sandbox time of one typical test; tests/s across all workers)')
console.table(
  suites.map((row) => ({
    target: row.target,
    client: row.client,
    'namespace per': row.namespacePer,
    workers: row.workers,
    tests: row.tests,
    'tests/s': row.testsPerSecond,
    'p50 ms': row.test.p50Ms,
    'p99 ms': row.test.p99Ms,
  })),
)
if (ratios.some((row) => row.testsPerSecondVsWireMock !== undefined)) console.table(ratios)
console.table(
  steps.map((row) => ({
    target: row.target,
    step: row.step,
    'p50 ms': row.summary.p50Ms,
    'p99 ms': row.summary.p99Ms,
    n: row.summary.samples,
  })),
)
console.table(memory)
console.table(targets)
console.log(
  `load average (1 min) before ${result.machine.loadAverage1mBefore}, after ${result.machine.loadAverage1mAfter}; written to ${file}`,
)
