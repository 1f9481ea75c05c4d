// The fault campaign: a real sandbox (in process, over HTTP) under a create load, on a real temp
// directory whose file system fails one kind of call at a time (test/store/faulty-file-system.ts):
// each call the store makes (open, write, fsync, truncate, close, rename, remove, the directory
// fsync) on each file it makes it on, with each error a disk gives (EIO, ENOSPC, EDQUOT, EROFS),
// and short and torn writes. The fault starts at the 1st, 2nd or 3rd matching call and stays until
// the test clears it (a disk that is down, then back). For each:
//   - every answer to a create is 201, or 503 storage_unavailable with Retry-After; never a 500;
//   - while the fault lasts, reads are served, and the files on disk hold every acknowledged pet
//     and no refused one; a fault that only hits compaction refuses no create at all;
//   - once it clears, creates are acknowledged again, with no restart;
//   - then the files hold every acknowledged pet, no refused one and nothing torn, no temporary
//     file is left, and a restart serves the same.
// Compaction is made frequent (every 6 records) so that its calls are hit as often as appends.
//
// Then resets, one journal line each: in the default namespace (a snapshot and its journal) and in
// a namespace never written whole (its journal alone), each call failing as above. A reset answered
// 200 is on disk, one answered 503 left the old pets there and served; once the fault clears, the
// next reset is stored, and a restart serves the same. The same for resets to a named snapshot.
//
// Then snapshot writes (their own file, written atomically): each call failing as above, a
// snapshot answered 201 is listed, on disk and listed again after a restart; one answered 503 is
// not listed and leaves no file; once the fault clears, the same name is taken.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { loadSpec } from '../../src/contract/load.js'
import { createLogger } from '../../src/logger.js'
import { startSandbox, SERVER_LIMITS } from '../../src/sandbox.js'
import { initialData } from '../../src/store/initial-data.js'
import { openStore } from '../../src/store/open-store.js'
import { Snapshots } from '../../src/store/snapshots.js'
import { DataFile } from '../../src/store/data-file.js'
import { type Compaction } from '../../src/store/compaction.js'
import type { Pet } from '../../src/store/pets.js'
import type { StoreData } from '../../src/store/store-file.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call as request } from '../support/control.js'
import { AUTH, postPet, tempDir, testConfig, waitFor } from '../support/sandbox.js'
import { FaultyFileSystem, type Call, type Failure, type Fault, type Target } from './faulty-file-system.js'

/**
 * A sandbox on a temp directory whose file system fails what the test arms, aimed at the files of
 * `faultyFile` (a name in that directory); stopped when the test ends.
 */
async function startOnFaultyDisk(t: Test, faultyFile: string, compaction?: Partial<Compaction>) {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const fs = new FaultyFileSystem(join(dir, faultyFile))
  const config = await testConfig(t, { DATA_FILE: dataFile, ADMIN_TOKEN })
  const sandbox = await startSandbox(config, createLogger('silent'), SERVER_LIMITS, { fileSystem: fs, compaction })
  t.teardown(() => sandbox.close())
  return { dir, dataFile, fs, config, sandbox }
}

/** The names of `items` (pets, or answers to creates). */
const namesOf = (items: ReadonlyArray<{ name: string }>): string[] => items.map((item) => item.name)

/** The names of the pets `baseUrl` lists with `headers`. */
const namesListed = async (baseUrl: string, headers: Record<string, string>): Promise<string[]> =>
  namesOf((await request(`${baseUrl}/pets?limit=100`, 'GET', undefined, headers)).body)

// A bound, not a timing: the campaign takes minutes on a loaded machine.
t.setTimeout(15 * 60_000)

const CLIENTS = 4
/** A bound on the creates of one client in one scenario; the phases end long before. */
const MAX_CREATES_PER_CLIENT = 2_000
const COMPACTION: Partial<Compaction> = {
  afterRecords: 6,
  growWithImage: false,
  // No fold on a timer: the checks read the files while nothing is being written.
  idleAfterRecords: Number.MAX_SAFE_INTEGER,
  headroomBytes: 0,
}
const ERRNOS: Failure[] = ['EIO', 'ENOSPC', 'EDQUOT', 'EROFS']
const WRITES: Failure[] = [...ERRNOS, 'short', 'torn']

/**
 * Each call on each file, with the failures it can meet. A truncate only comes when a failed
 * write's tail is cut, so it is failed together with the writes (which then write nothing).
 */
const TARGETS: Array<{
  call: Call
  target: Target
  failures: Failure[]
  with?: Fault
  compaction?: Partial<Compaction>
}> = [
  { call: 'write', target: 'journal', failures: WRITES },
  { call: 'write', target: 'temp snapshot', failures: WRITES },
  { call: 'fsync', target: 'journal', failures: ERRNOS },
  { call: 'fsync', target: 'temp snapshot', failures: ERRNOS },
  { call: 'open', target: 'journal', failures: ERRNOS },
  { call: 'open', target: 'temp snapshot', failures: ERRNOS },
  { call: 'close', target: 'journal', failures: ERRNOS },
  { call: 'close', target: 'temp snapshot', failures: ERRNOS },
  { call: 'rename', target: 'temp snapshot', failures: ERRNOS },
  { call: 'remove', target: 'journal', failures: ERRNOS },
  { call: 'syncDirectory', target: 'directory', failures: ERRNOS },
  {
    call: 'truncate',
    target: 'journal',
    failures: ERRNOS,
    with: { call: 'write', target: 'journal', failure: 'EIO', nth: 1, persistent: true },
    // No compaction: a tail is cut by a truncate only in a journal that holds records already.
    compaction: { afterRecords: Number.MAX_SAFE_INTEGER },
  },
]

/**
 * Whether the fault keeps creates from being stored. A failed compaction does not (the journal
 * goes on), a failed close of a synced journal does not, and a short write is finished by the next.
 */
const blocksWrites = (call: Call, target: Target, failure: Failure): boolean =>
  failure !== 'short' && target !== 'temp snapshot' && call !== 'close'

interface Answer {
  readonly name: string
  readonly status: number
  readonly id: number | undefined
  readonly code: string | undefined
  readonly retryAfter: string | null
  readonly sentAt: number
  readonly answeredAt: number
}

/** Clients creating pets back to back, which a test can pause (waiting for what is in flight) and resume. */
class CreateLoad {
  readonly answers: Answer[] = []
  readonly #baseUrl: string
  readonly #prefix: string
  #gate: Promise<void> = Promise.resolve()
  #open: () => void = () => undefined
  #inFlight = 0
  #stopped = false
  readonly #clients: Promise<void>[]

  constructor(baseUrl: string, prefix: string) {
    this.#baseUrl = baseUrl
    this.#prefix = prefix
    this.#clients = Array.from({ length: CLIENTS }, (_, c) => this.#client(c))
  }

  get acknowledged(): Answer[] {
    return this.answers.filter((a) => a.status === 201)
  }

  async #client(c: number): Promise<void> {
    for (let i = 0; i < MAX_CREATES_PER_CLIENT; i++) {
      await this.#gate
      if (this.#stopped) return
      this.#inFlight++
      const name = `${this.#prefix}-${c}-${i}`
      const sentAt = performance.now()
      try {
        const res = await postPet(this.#baseUrl, { name, categoryId: c + 1 })
        const body = (await res.json()) as { id?: number; code?: string }
        const answeredAt = performance.now()
        const retryAfter = res.headers.get('retry-after')
        this.answers.push({ name, status: res.status, id: body.id, code: body.code, retryAfter, sentAt, answeredAt })
      } finally {
        this.#inFlight--
      }
    }
  }

  async pause(): Promise<void> {
    this.#gate = new Promise((resolve) => (this.#open = resolve))
    await waitFor(() => this.#inFlight === 0, { what: 'the creates in flight to be answered', intervalMs: 5 })
  }

  resume(): void {
    this.#open()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.resume()
    await Promise.all(this.#clients)
  }
}

/** The pets a restart finds in the files as they are now (the start's own read, over the real file system). */
async function readFiles(dataFile: string): Promise<{ pets: Pet[]; droppedBytes: number }> {
  const reader = new DataFile<StoreData, Pet>(dataFile, 'pets')
  const data = await reader.read()
  return { pets: data?.pets ?? [], droppedBytes: reader.droppedTail?.bytes ?? 0 }
}

/** Every acknowledged pet is there as acknowledged, no refused one is, and no id is there twice. */
function checkPets(t: Test, pets: readonly Pet[], answers: readonly Answer[], where: string): number {
  const byId = new Map(pets.map((pet) => [pet.id, pet]))
  const names = new Set(pets.map((pet) => pet.name))
  const lost = answers.filter((a) => a.status === 201 && byId.get(a.id as number)?.name !== a.name)
  const refused = answers.filter((a) => a.status !== 201 && names.has(a.name))
  t.same(namesOf(lost), [], `${where}: every acknowledged pet`)
  t.same(namesOf(refused), [], `${where}: no refused pet`)
  t.equal(byId.size, pets.length, `${where}: no id twice`)
  return lost.length
}

/** Files in the data directory other than the data file, its journal and its lock: temporary files left behind. */
async function leftovers(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !['db.json', 'db.json.journal', 'db.json.lock'].includes(name))
}

const figures = {
  scenarios: 0,
  injected: 0,
  acknowledged: 0,
  refused: 0,
  lost: 0,
  leftovers: 0,
  recoveryMs: [] as number[],
}

let index = 0
for (const { call, target, failures, with: companion, compaction } of TARGETS) {
  for (const failure of failures) {
    const nth = 1 + (index++ % 3)
    const blocks = blocksWrites(call, target, failure)
    const also = companion ? ` with every ${companion.call} of the ${companion.target} (${companion.failure})` : ''
    t.test(`${call} of the ${target} fails (${failure}) from the call #${nth} on${also}, then clears`, async (t) => {
      const { dir, dataFile, fs, config, sandbox } = await startOnFaultyDisk(t, 'db.json', {
        ...COMPACTION,
        ...compaction,
      })
      const load = new CreateLoad(sandbox.baseUrl, `${call}-${target}-${failure}`)
      try {
        await waitFor(() => load.acknowledged.length >= 10, {
          what: '10 creates acknowledged before the fault',
          intervalMs: 5,
        })

        fs.arm({ call, target, failure, nth, persistent: true }, ...(companion ? [companion] : []))
        const armedAt = performance.now()
        await waitFor(() => fs.failedSinceArmed(call) >= 3, {
          what: `3 ${call} calls on the ${target} to fail`,
          intervalMs: 5,
        })
        await load.pause()
        const refused = load.answers.filter((a) => a.status !== 201)
        if (blocks)
          t.ok(
            refused.some((a) => a.answeredAt >= armedAt),
            `creates are refused while the fault lasts (${refused.length})`,
          )
        else t.same(refused, [], 'no create is refused: the journal goes on')
        const reads = await Promise.all([
          fetch(`${sandbox.baseUrl}/pets?limit=5`, { headers: AUTH }),
          fetch(`${sandbox.baseUrl}/pets/${load.acknowledged[0]?.id}`, { headers: AUTH }),
        ])
        for (const read of reads) await read.arrayBuffer()
        t.same(
          reads.map((r) => r.status),
          [200, 200],
          'reads are served while the fault lasts',
        )
        checkPets(t, (await readFiles(dataFile)).pets, load.answers, 'on disk during the fault')
        // A temporary snapshot left by a failed compaction would hold the room the next write needs.
        t.same(await leftovers(dir), [], 'no temporary file is left during the fault')

        fs.clear()
        const clearedAt = performance.now()
        load.resume()
        const recovered = (): Answer | undefined => load.answers.find((a) => a.sentAt >= clearedAt && a.status === 201)
        await waitFor(() => recovered() !== undefined, {
          what: 'a create acknowledged once the fault cleared',
          intervalMs: 5,
        })
        figures.recoveryMs.push((recovered() as Answer).answeredAt - clearedAt)
        const total = load.acknowledged.length
        await waitFor(() => load.acknowledged.length >= total + 10, {
          what: '10 more creates acknowledged',
          intervalMs: 5,
        })
      } finally {
        fs.clear()
        await load.stop()
      }

      const wrong = load.answers.filter(
        (a) => a.status !== 201 && !(a.status === 503 && a.code === 'storage_unavailable' && a.retryAfter === '1'),
      )
      t.same(wrong, [], 'every create is answered 201, or 503 storage_unavailable with Retry-After: 1')
      const health = await fetch(`${sandbox.origin}/healthz`)
      await health.arrayBuffer()
      t.equal(health.status, 200, 'the server is up')
      checkPets(t, sandbox.store.all(), load.answers, 'served')
      const files = await readFiles(dataFile)
      t.equal(files.droppedBytes, 0, 'nothing torn is left in the journal')
      let lost = checkPets(t, files.pets, load.answers, 'on disk')
      const left = await leftovers(dir)
      t.same(left, [], 'no temporary file is left')

      await sandbox.close()
      const restarted = await startSandbox(config, createLogger('silent'))
      lost += checkPets(t, restarted.store.all(), load.answers, 'after a restart')
      await restarted.close()

      figures.scenarios++
      figures.injected += fs.injected
      figures.acknowledged += load.acknowledged.length
      figures.refused += load.answers.length - load.acknowledged.length
      figures.lost += lost
      figures.leftovers += left.length
    })
  }
}

/** What a restart finds in a store's files (its journal's resets replayed), read without writing anything. */
async function readStore(config: Awaited<ReturnType<typeof testConfig>>, dataFile: string, namespace: boolean) {
  const initial = await initialData(config.initialData, await loadSpec())
  const snapshots = await Snapshots.open({ dataFile: config.dataFile, checkPets: () => undefined })
  const { store } = await openStore({
    sharedPets: (source) => snapshots.sharedPets(source) ?? initial.sharedPets(source),
    dataFile,
    source: initial.source,
    checkPets: () => undefined,
    unwrittenUntilChanged: namespace,
  })
  return namesOf(store.all())
}

const RESET_TARGETS: Array<{ call: Call; target: Target; failures: Failure[] }> = [
  { call: 'write', target: 'journal', failures: WRITES },
  { call: 'fsync', target: 'journal', failures: ERRNOS },
  { call: 'open', target: 'journal', failures: ERRNOS },
  { call: 'remove', target: 'journal', failures: ['EIO'] },
  { call: 'syncDirectory', target: 'directory', failures: ERRNOS },
  { call: 'write', target: 'temp snapshot', failures: ['EIO'] },
  { call: 'rename', target: 'temp snapshot', failures: ['EIO'] },
]
const resetFigures = { scenarios: 0, stored: 0, refused: 0, wrong: 0 }

for (const [namespace, from] of [
  ['default', 'seed'],
  ['fresh', 'seed'],
  ['default', 'snapshot'],
  ['fresh', 'snapshot'],
] as const) {
  for (const { call, target, failures } of RESET_TARGETS) {
    for (const failure of failures) {
      const what = `a reset of the ${namespace} namespace to a ${from}`
      t.test(`${what} while ${call} of the ${target} fails (${failure})`, async (t) => {
        // The fresh namespace's files are named after it: the faults aim at them.
        const ownFile = namespace === 'default' ? 'db.json' : `db.ns.${namespace}.json`
        const { dir, fs, config, sandbox } = await startOnFaultyDisk(t, ownFile)
        const nsFile = join(dir, ownFile)
        const headers = { ...AUTH, 'x-sandbox-namespace': namespace }
        const names = (): Promise<string[]> => namesListed(sandbox.baseUrl, headers)
        const admin = (path: string, body: unknown) =>
          request(`${sandbox.origin}/__admin${path}`, 'POST', body, ADMIN_AUTH)
        // Snapshots s7 and s8 of seeded pets, taken before any fault: a reset to one is one journal line.
        for (const seed of [7, 8]) {
          await admin('/reset?namespace=source', { seed, count: 5 })
          t.equal((await admin('/snapshots', { name: `s${seed}`, namespace: 'source' })).status, 201)
        }
        const reset = (seed: number) =>
          admin(`/reset?namespace=${namespace}`, from === 'seed' ? { seed, count: 5 } : { snapshot: `s${seed}` })
        for (let i = 0; i < 3; i++)
          t.equal(
            (await request(`${sandbox.baseUrl}/pets`, 'POST', { name: `kept-${i}`, categoryId: 1 }, headers)).status,
            201,
          )
        const before = await names()

        fs.arm({ call, target, failure, nth: 1, persistent: true })
        const answer = await reset(7)
        fs.clear()
        const after = await names()
        if (answer.status === 200) {
          resetFigures.stored++
          t.not(after.join(), before.join(), 'a reset answered 200 is served')
        } else {
          resetFigures.refused++
          t.match(answer, { status: 503, body: { code: 'storage_unavailable' } }, 'a refused reset is a 503')
          t.same(after, before, 'a refused reset changed nothing that is served')
        }
        const onDisk = await readStore(config, nsFile, namespace !== 'default')
        if (onDisk.join() !== after.join()) resetFigures.wrong++
        t.same(onDisk, after, 'the files hold what is served')

        t.equal((await reset(8)).status, 200, 'once the fault clears, a reset is stored')
        const seeded = await names()
        t.same(await readStore(config, nsFile, namespace !== 'default'), seeded, 'and is on disk')
        t.same(await leftovers(dir).then((l) => l.filter((f) => f.startsWith('.'))), [], 'no temporary file is left')
        await sandbox.close()
        const restarted = await startSandbox(config, createLogger('silent'))
        t.same(await namesListed(restarted.baseUrl, headers), seeded, 'a restart serves the same')
        await restarted.close()
        resetFigures.scenarios++
      })
    }
  }
}

const SNAPSHOT_TARGETS: Array<{ call: Call; target: Target; failures: Failure[] }> = [
  { call: 'open', target: 'temp snapshot', failures: ERRNOS },
  { call: 'write', target: 'temp snapshot', failures: WRITES },
  { call: 'fsync', target: 'temp snapshot', failures: ERRNOS },
  { call: 'close', target: 'temp snapshot', failures: ['EIO'] },
  { call: 'rename', target: 'temp snapshot', failures: ERRNOS },
  { call: 'syncDirectory', target: 'directory', failures: ERRNOS },
]
const snapshotFigures = { scenarios: 0, stored: 0, refused: 0, wrong: 0 }

for (const { call, target, failures } of SNAPSHOT_TARGETS) {
  for (const failure of failures) {
    t.test(`a snapshot is taken while ${call} of its ${target} fails (${failure})`, async (t) => {
      // The faults aim at the snapshot's own file (its temporary file, and the directory).
      const { dir, fs, config, sandbox } = await startOnFaultyDisk(t, 'db.snapshot.frozen.json')
      const admin = (method: string, path: string, body?: unknown) =>
        request(`${sandbox.origin}/__admin${path}`, method, body, ADMIN_AUTH)
      const listed = async (): Promise<string[]> => namesOf((await admin('GET', '/snapshots')).body.snapshots)
      await admin('POST', '/reset?namespace=source', { seed: 4, count: 30 })

      fs.arm({ call, target, failure, nth: 1, persistent: true })
      const answer = await admin('POST', '/snapshots', { name: 'frozen', namespace: 'source' })
      fs.clear()
      const files = (await readdir(dir)).filter((f) => f.includes('snapshot'))
      if (answer.status === 201) {
        snapshotFigures.stored++
        t.same(await listed(), ['frozen'], 'a snapshot answered 201 is listed')
        t.same(files, ['db.snapshot.frozen.json'], 'and on disk')
      } else {
        snapshotFigures.refused++
        t.match(answer, { status: 503, body: { code: 'storage_unavailable' } }, 'a refused snapshot is a 503')
        t.same(await listed(), [], 'a refused snapshot is not listed')
        if (files.length > 0) snapshotFigures.wrong++
        t.same(files, [], 'and leaves no file')
        t.equal(
          (await admin('POST', '/snapshots', { name: 'frozen', namespace: 'source' })).status,
          201,
          'once the fault clears, it is taken',
        )
      }
      t.equal((await admin('POST', '/reset?namespace=fork', { snapshot: 'frozen' })).body.pets, 30)
      await sandbox.close()
      const restarted = await startSandbox(config, createLogger('silent'))
      const again = await request(`${restarted.origin}/__admin/snapshots`, 'GET', undefined, ADMIN_AUTH)
      t.match(
        again.body,
        { count: 1, snapshots: [{ name: 'frozen', pets: 30, forks: ['fork'] }] },
        'a restart lists it',
      )
      await restarted.close()
      snapshotFigures.scenarios++
    })
  }
}

t.test('the campaign in figures', async (t) => {
  const sorted = [...figures.recoveryMs].sort((a, b) => a - b)
  const ms = (value: number | undefined): string => `${Math.round(value ?? NaN)} ms`
  t.comment(
    `fault campaign: ${figures.scenarios} scenarios, ${figures.injected} faults injected, ` +
      `${figures.acknowledged} creates acknowledged, ${figures.refused} refused (503), lost ${figures.lost}, ` +
      `leftovers ${figures.leftovers}, recovery after the fault cleared: median ${ms(sorted[sorted.length >> 1])}, ` +
      `max ${ms(sorted[sorted.length - 1])}`,
  )
  t.comment(
    `resets under faults: ${resetFigures.scenarios} scenarios, ${resetFigures.stored} stored, ${resetFigures.refused} refused (503), files unlike what was served ${resetFigures.wrong}`,
  )
  t.comment(
    `snapshots under faults: ${snapshotFigures.scenarios} scenarios, ${snapshotFigures.stored} stored, ${snapshotFigures.refused} refused (503), refused ones left on disk ${snapshotFigures.wrong}`,
  )
  t.equal(figures.lost, 0, 'no acknowledged create lost')
  t.equal(snapshotFigures.wrong, 0, 'no refused snapshot left on disk')
  t.equal(resetFigures.wrong, 0, 'no reset on disk that was not served, or served that was not on disk')
  t.equal(figures.leftovers, 0, 'no temporary file left')
})
