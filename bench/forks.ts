// Forks of a rich fixture: a sandbox started from a fixtures file of 100,000 pets freezes them as
// a snapshot and stops; a sandbox of the default data on the same data directory finds the
// snapshot at start, and 1,000 namespaces are reset to it one after the other (each a new
// namespace and one journal line). (The rich data is not the second sandbox's initial data: a new
// namespace starts from its initial data before the reset replaces it.) Reported: p50/p99 per
// fork, and the server's RSS before and after. Then RSS with 1,000 idle namespaces (each started
// by a reset to its initial data) in a sandbox of the default data, against the same sandbox with
// none, on a data file and in memory.
//
//   tsx bench/forks.ts [--smoke] [--out DIR]
//
// Every loop is bounded in count; everything talks to 127.0.0.1.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { AnimalStoreControlClient } from '../modules/node/src/client.js'
import { ROOT, SERVERS, rssMiB, startServer } from './servers.js'

const { values: flags } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, out: { type: 'string' } },
})
const SMOKE = flags.smoke === true
const SETTINGS = SMOKE ? { pets: 2_000, forks: 20 } : { pets: 100_000, forks: 1_000 }
const OUT_DIR = flags.out ?? join(ROOT, 'bench/results')

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

const round = (value: number | undefined): number | undefined =>
  value === undefined ? undefined : Math.round(value * 100) / 100

/** A sandbox of `env` (on a data file in `dir`, a new temp directory by default, unless `memory`), with its client. */
async function sandbox(env: Record<string, string>, memory: boolean, dir?: string) {
  dir ??= await mkdtemp(join(tmpdir(), 'forks-bench-'))
  const server = await startServer(SERVERS.sandbox, {
    core: undefined,
    timeoutMs: 120_000,
    env: { DATA_FILE: memory ? ':memory:' : join(dir, 'db.json'), MAX_NAMESPACES: '2000', ...env },
  })
  const client = new AnimalStoreControlClient(server.origin)
  return {
    client,
    rss: async () => (await rssMiB(server.child.pid)) ?? NaN,
    async stop() {
      await server.stop()
    },
    async remove() {
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function forks() {
  const dir = await mkdtemp(join(tmpdir(), 'forks-bench-'))
  const fixtures = join(dir, 'rich.json')
  const rich = Array.from({ length: SETTINGS.pets }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: 1 + (i % 8),
    status: (['available', 'pending', 'sold'] as const)[i % 3],
  }))
  await writeFile(fixtures, JSON.stringify(rich))
  const source = await sandbox({ FIXTURES: fixtures }, false, dir)
  const snapshotStarted = performance.now()
  await source.client.createSnapshot('rich')
  const snapshotMs = performance.now() - snapshotStarted
  await source.stop()
  const running = await sandbox({}, false, dir)
  try {
    const before = await running.rss()
    const samples: number[] = []
    for (let i = 0; i < SETTINGS.forks; i++) {
      const started = performance.now()
      const { pets } = await running.client.namespace(`fork-${i}`).reset({ snapshot: 'rich' })
      samples.push(performance.now() - started)
      if (pets !== SETTINGS.pets) throw new Error(`fork-${i} holds ${pets} pets, not ${SETTINGS.pets}`)
    }
    const after = await running.rss()
    samples.sort((a, b) => a - b)
    return {
      storage: 'data file',
      snapshotPets: SETTINGS.pets,
      forks: SETTINGS.forks,
      snapshotMs: round(snapshotMs),
      forkP50Ms: round(percentile(samples, 50)),
      forkP99Ms: round(percentile(samples, 99)),
      rssBeforeMiB: round(before),
      rssGrowthMiB: round(after - before),
    }
  } finally {
    await running.stop()
    await running.remove()
  }
}

async function idleNamespaces(memory: boolean) {
  const running = await sandbox({}, memory)
  try {
    const before = await running.rss()
    for (let i = 0; i < SETTINGS.forks; i++) await running.client.namespace(`idle-${i}`).reset()
    const after = await running.rss()
    return {
      storage: memory ? 'in memory' : 'data file',
      namespaces: SETTINGS.forks,
      rssBeforeMiB: round(before),
      rssAfterMiB: round(after),
      perNamespaceKiB: round(((after - before) * 1024) / SETTINGS.forks),
    }
  } finally {
    await running.stop()
    await running.remove()
  }
}

const forkRows = [await forks()]
const idleRows = [await idleNamespaces(false), await idleNamespaces(true)]
console.table(forkRows)
console.table(idleRows)
await mkdir(OUT_DIR, { recursive: true })
await writeFile(
  join(OUT_DIR, SMOKE ? 'forks-smoke.json' : 'forks.json'),
  `${JSON.stringify({ settings: SETTINGS, forks: forkRows, idle: idleRows }, null, 2)}\n`,
)
