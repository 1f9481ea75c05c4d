// Forks of a rich fixture: a sandbox started from a fixtures file of 100,000 pets freezes them as
// a snapshot and stops; a sandbox of the default data on the same data directory finds the
// snapshot at start, and 1,000 namespaces are reset to it one after the other (each a new
// namespace and one line of the namespaces' shared log). (The rich data is not the second
// sandbox's initial data: a new namespace starts from its initial data before the reset replaces
// it.) Reported: p50/p99 per fork, and the server's RSS before and after. Then RSS with 1,000 idle
// namespaces (each started by a reset to its initial data, timed) in a sandbox of the default data,
// against the same sandbox with none, on a data file and in memory; and the same with the 100,000
// pets as the initial data, which every namespace shares. Each sandbox has served as many plain requests first (V8's
// first growth is no namespace's), and each run is repeated in a second sandbox that measures the
// live heap instead, from heap snapshots: what the namespaces hold, whenever V8 last collected.
//
//   tsx bench/forks.ts [--smoke] [--out DIR]
//
// Every loop is bounded in count; everything talks to 127.0.0.1.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { AnimalStoreControlClient } from '../modules/node/src/client.js'
import { AUTH, ROOT, SERVERS, rssMiB, startServer, status } from './servers.js'

const { values: flags } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, out: { type: 'string' } },
})
const SMOKE = flags.smoke === true
const SETTINGS = SMOKE ? { pets: 2_000, forks: 20 } : { pets: 100_000, forks: 1_000 }
/** As many requests as the measured part sends, before its RSS baseline. */
const WARM_UP_REQUESTS = SETTINGS.forks
const OUT_DIR = flags.out ?? join(ROOT, 'bench/results')

interface HeapSnapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: string[] } }
  readonly nodes: number[]
}

/** The sum of every object's own size in a heap snapshot: what the heap holds alive. */
function liveBytes({ snapshot, nodes }: HeapSnapshot): number {
  const fields = snapshot.meta.node_fields
  const selfSize = fields.indexOf('self_size')
  let bytes = 0
  for (let i = selfSize; i < nodes.length; i += fields.length) bytes += nodes[i] as number
  return bytes
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

const round = (value: number | undefined): number | undefined =>
  value === undefined ? undefined : Math.round(value * 100) / 100

/** A sandbox of `env` (on a data file in `given`, a new temp directory by default, unless `memory`), with its client. */
async function sandbox(env: Record<string, string>, memory: boolean, given?: string) {
  const dir = given ?? (await mkdtemp(join(tmpdir(), 'forks-bench-')))
  const heapSnapshots = await mkdtemp(join(tmpdir(), 'forks-bench-heap-'))
  const server = await startServer(SERVERS.sandbox, {
    core: undefined,
    timeoutMs: 120_000,
    env: { DATA_FILE: memory ? ':memory:' : join(dir, 'db.json'), MAX_NAMESPACES: '2000', ...env },
    // A heap snapshot on SIGUSR2 (nothing else changes): the way to the heap's live size from outside.
    nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshots}`],
  })
  const client = new AnimalStoreControlClient(server.origin)
  return {
    client,
    rss: async () => (await rssMiB(server.child.pid)) ?? NaN,
    /**
     * The heap's live size in MiB: V8 collects all garbage before it writes a heap snapshot, which
     * holds the size of every object left. (RSS moves with when V8 last collected: across runs,
     * 1,000 forks "grew" it by -3 to +12 MiB while they held 3 MiB.)
     */
    async liveHeapMiB() {
      const before = new Set(await readdir(heapSnapshots))
      process.kill(server.child.pid as number, 'SIGUSR2')
      let file: string | undefined
      for (let i = 0; i < 600 && file === undefined; i++) {
        await sleep(100)
        file = (await readdir(heapSnapshots)).find((name) => !before.has(name))
      }
      if (file === undefined) throw new Error('the heap snapshot did not come within 60 s')
      // The snapshot is written on the server's one thread: once it answers again, the file is
      // whole. Each try on a new connection: a pooled one may have closed during the pause.
      for (let i = 0; (await status(`${server.origin}/healthz`)) !== 200; i++) {
        if (i === 100) throw new Error('the sandbox did not answer after its heap snapshot')
        await sleep(100)
      }
      const path = join(heapSnapshots, file)
      const live = liveBytes(JSON.parse(await readFile(path, 'utf8')) as HeapSnapshot)
      await rm(path)
      return live / 2 ** 20
    },
    /**
     * Serves requests that make no namespace, before an RSS baseline: V8 grows its young
     * generation and compiles the request path under the first traffic, whatever it asks, and that
     * one-time growth is no namespace's.
     */
    async warmUp() {
      for (let i = 0; i < WARM_UP_REQUESTS; i++) {
        const res = await fetch(`${server.origin}/v1/pets?limit=1`, { headers: AUTH })
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`warm-up: GET /v1/pets answered ${res.status}`)
      }
    },
    async stop() {
      await server.stop()
      await rm(heapSnapshots, { recursive: true, force: true })
    },
    /** Removes the data directory, if the sandbox made it (a given one is the caller's). */
    async remove() {
      if (given === undefined) await rm(dir, { recursive: true, force: true })
    },
  }
}

/** A fixtures file of SETTINGS.pets pets in `dir`. */
async function richFixtures(dir: string): Promise<string> {
  const fixtures = join(dir, 'rich.json')
  const rich = Array.from({ length: SETTINGS.pets }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: 1 + (i % 8),
    status: (['available', 'pending', 'sold'] as const)[i % 3],
  }))
  await writeFile(fixtures, JSON.stringify(rich))
  return fixtures
}

async function forks() {
  const dir = await mkdtemp(join(tmpdir(), 'forks-bench-'))
  const fixtures = await richFixtures(dir)
  const source = await sandbox({ FIXTURES: fixtures }, false, dir)
  const snapshotStarted = performance.now()
  await source.client.createSnapshot('rich')
  const snapshotMs = performance.now() - snapshotStarted
  await source.stop()
  const fork = async (running: Sandbox, name: string): Promise<void> => {
    const { pets } = await running.client.namespace(name).reset({ snapshot: 'rich' })
    if (pets !== SETTINGS.pets) throw new Error(`${name} holds ${pets} pets, not ${SETTINGS.pets}`)
  }
  const samples: number[] = []
  const { rssBefore, rssAfter, liveHeapGrowth } = await weighed(
    () => sandbox({}, false, dir),
    async (running, run) => {
      for (let i = 0; i < SETTINGS.forks; i++) {
        const started = performance.now()
        await fork(running, `${run}-fork-${i}`)
        if (run === 'timed') samples.push(performance.now() - started)
      }
    },
  )
  await rm(dir, { recursive: true, force: true })
  samples.sort((a, b) => a - b)
  return {
    storage: 'data file',
    snapshotPets: SETTINGS.pets,
    forks: SETTINGS.forks,
    snapshotMs: round(snapshotMs),
    forkP50Ms: round(percentile(samples, 50)),
    forkP99Ms: round(percentile(samples, 99)),
    rssBeforeMiB: round(rssBefore),
    rssGrowthMiB: round(rssAfter - rssBefore),
    liveHeapGrowthMiB: round(liveHeapGrowth),
  }
}

/**
 * Idle namespaces, each started by a reset to the initial data: the default data, or with `rich`
 * a fixtures file of SETTINGS.pets pets (which every namespace shares, by reference).
 */
async function idleNamespaces(memory: boolean, rich = false) {
  const fixturesDir = rich ? await mkdtemp(join(tmpdir(), 'forks-bench-fixtures-')) : undefined
  const env: Record<string, string> = fixturesDir === undefined ? {} : { FIXTURES: await richFixtures(fixturesDir) }
  const samples: number[] = []
  const { rssBefore, rssAfter, liveHeapGrowth } = await weighed(
    () => sandbox(env, memory),
    async (running, run) => {
      for (let i = 0; i < SETTINGS.forks; i++) {
        const started = performance.now()
        await running.client.namespace(`${run}-idle-${i}`).reset()
        if (run === 'timed') samples.push(performance.now() - started)
      }
    },
  )
  if (fixturesDir !== undefined) await rm(fixturesDir, { recursive: true, force: true })
  samples.sort((a, b) => a - b)
  return {
    storage: memory ? 'in memory' : 'data file',
    initialPets: rich ? SETTINGS.pets : 'default',
    namespaces: SETTINGS.forks,
    resetP50Ms: round(percentile(samples, 50)),
    resetP99Ms: round(percentile(samples, 99)),
    rssBeforeMiB: round(rssBefore),
    rssAfterMiB: round(rssAfter),
    perNamespaceKiB: round(((rssAfter - rssBefore) * 1024) / SETTINGS.forks),
    liveHeapPerNamespaceKiB: round((liveHeapGrowth * 1024) / SETTINGS.forks),
  }
}

type Sandbox = Awaited<ReturnType<typeof sandbox>>

/**
 * Runs `work` in two sandboxes of the same settings, each warmed up first: in the first (`timed`)
 * with RSS read before and after, in the second (`weighed`) with the live heap measured before
 * and after (the heap snapshots that measure it grow RSS themselves, so they stay out of the first).
 */
async function weighed(
  start: () => Promise<Sandbox>,
  work: (running: Sandbox, run: 'timed' | 'weighed') => Promise<void>,
): Promise<{ rssBefore: number; rssAfter: number; liveHeapGrowth: number }> {
  const measure = async <T>(run: 'timed' | 'weighed', gauge: (running: Sandbox) => Promise<T>): Promise<[T, T]> => {
    const running = await start()
    try {
      await running.warmUp()
      const before = await gauge(running)
      await work(running, run)
      return [before, await gauge(running)]
    } finally {
      await running.stop()
      await running.remove()
    }
  }
  const [rssBefore, rssAfter] = await measure('timed', (running) => running.rss())
  const [heapBefore, heapAfter] = await measure('weighed', (running) => running.liveHeapMiB())
  return { rssBefore, rssAfter, liveHeapGrowth: heapAfter - heapBefore }
}

const forkRows = [await forks()]
const idleRows = [
  await idleNamespaces(false),
  await idleNamespaces(true),
  await idleNamespaces(false, true),
  await idleNamespaces(true, true),
]
console.table(forkRows)
console.table(idleRows)
await mkdir(OUT_DIR, { recursive: true })
await writeFile(
  join(OUT_DIR, SMOKE ? 'forks-smoke.json' : 'forks.json'),
  `${JSON.stringify({ settings: SETTINGS, forks: forkRows, idle: idleRows }, null, 2)}\n`,
)
