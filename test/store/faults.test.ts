// The store under faults, each promise once (docs/reliability.md, "Fault campaign" and the crash
// test): a real disk full or read-only; each call the store makes failing on each of its files;
// SIGKILL of the real command 50 times under load (CRASH_SEED replays a run's random moments).
// What is on disk is checked by a new server started on a copy of the data directory.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, watch } from 'node:fs'
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import type { Config } from '../../src/config.js'
import { loadSpec } from '../../src/contract/load.js'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import type { Compaction } from '../../src/store/compaction.js'
import { generateAnimals } from '../../src/store/seed.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, ns, startControlSandbox } from '../support/control.js'
import { seededRandom } from '../support/random.js'
import { API_KEY, AUTH, buildCli, postPet, spawnCli, tempDir, waitFor } from '../support/sandbox.js'
import type { StoredPet } from '../support/sandbox.js'
import { FaultyFileSystem, type Call, type Failure, type Fault, type Target } from './faulty-file-system.js'

// A bound for a hang only: the campaign and the kills take minutes on a loaded machine.
t.setTimeout(25 * 60_000)

// ---- What every part checks

/** The pets `origin` serves in `namespace` (undefined: not there, a 404). */
async function petsOf(origin: string, namespace?: string): Promise<StoredPet[] | undefined> {
  const query = namespace === undefined ? '' : `?namespace=${namespace}`
  const answer = await call(`${origin}/__admin/pets${query}`, 'GET', undefined, ADMIN_AUTH)
  if (answer.status === 404) return undefined
  if (answer.status !== 200)
    throw new Error(`GET /__admin/pets${query}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body as StoredPet[]
}
const namesOf = (pets: ReadonlyArray<{ name: string }> | undefined): string[] | undefined => pets?.map((p) => p.name)

/** What a new server serves in `namespace` from a copy of `dir` as it is now, and what it warned of. */
async function onDisk(t: Test, dir: string, namespace?: string) {
  const copy = await tempDir(t)
  await cp(dir, copy, { recursive: true, filter: (source) => !source.endsWith('filler') })
  const sandbox = await startControlSandbox(t, { DATA_FILE: join(copy, 'db.json'), LOG_LEVEL: 'warn' })
  try {
    return { pets: await petsOf(sandbox.origin, namespace), warnings: JSON.stringify(sandbox.logs) }
  } finally {
    await sandbox.close()
  }
}

/** A new server on the settings of `sandbox`, once it has stopped; stopped when the test ends. */
async function restart(t: Test, sandbox: { config: Config; close(): Promise<void> }) {
  await sandbox.close()
  const restarted = await startSandbox(sandbox.config, createLogger('silent'))
  t.teardown(() => restarted.close())
  return restarted
}

/** Temporary files in the data directory: what a failed or killed write left. */
const leftovers = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((f) => f.startsWith('.'))

interface Answer {
  readonly name: string
  readonly status: number
  readonly pet: StoredPet | undefined
  readonly code: string | undefined
  readonly retryAfter: string | null
  readonly sentAt: number
}

type Answered = Pick<Answer, 'name' | 'status' | 'pet'>

/** Every acknowledged pet is there as acknowledged, no refused one is, and no id is there or acknowledged twice. */
function checkPets(t: Test, pets: readonly StoredPet[] = [], answers: readonly Answered[], where: string): void {
  const byId = new Map(pets.map((pet) => [pet.id, JSON.stringify(pet)]))
  const names = new Set(pets.map((pet) => pet.name))
  const acknowledged = answers.flatMap((a) => (a.pet ? [a.pet] : []))
  const lost = acknowledged.filter((pet) => byId.get(pet.id) !== JSON.stringify(pet))
  t.same(lost.slice(0, 5), [], `${where}: every acknowledged pet, as acknowledged`)
  t.same(namesOf(answers.filter((a) => a.status !== 201 && names.has(a.name))), [], `${where}: no refused pet`)
  t.equal(byId.size, pets.length, `${where}: no id twice`)
  t.equal(new Set(acknowledged.map((pet) => pet.id)).size, acknowledged.length, `${where}: no id acknowledged twice`)
}

/** Clients creating pets back to back until stopped or the server is gone; a test can pause them. */
class CreateLoad {
  readonly answers: Answer[] = []
  #gate: Promise<void> = Promise.resolve()
  #open: () => void = () => undefined
  #inFlight = 0
  #stopped = false
  readonly #clients: Promise<void>[]

  constructor(baseUrl: string, prefix: string, clients: number) {
    this.#clients = Array.from({ length: clients }, (_, c) => this.#client(baseUrl, `${prefix}-${c}`, c + 1))
  }

  get acknowledged(): Answer[] {
    return this.answers.filter((a) => a.status === 201)
  }

  async #client(baseUrl: string, prefix: string, categoryId: number): Promise<void> {
    // A bound on the creates of one client; a phase ends long before.
    for (let i = 0; i < 5_000; i++) {
      await this.#gate
      if (this.#stopped) return
      this.#inFlight++
      const name = `${prefix}-${i}`
      const sentAt = performance.now()
      try {
        const res = await postPet(baseUrl, { name, categoryId })
        const body = (await res.json()) as StoredPet & { code?: string }
        const pet = res.status === 201 ? body : undefined
        const retryAfter = res.headers.get('retry-after')
        this.answers.push({ name, status: res.status, pet, code: body.code, retryAfter, sentAt })
      } catch {
        return // the server is gone
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

/** A refused write: 503 storage_unavailable, with Retry-After. */
const REFUSED = { status: 503, headers: { 'retry-after': '1' }, body: { code: 'storage_unavailable', status: 503 } }
const refusal = (answer: { status: number; headers: Headers; body: unknown }) => ({
  status: answer.status,
  headers: { 'retry-after': answer.headers.get('retry-after') },
  body: answer.body,
})

// ---- 1. A real disk

/** Why this machine cannot give a test a file system of its own (mounting needs root), if it cannot. */
function whyNoTmpfs(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'animal-store-probe-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' })
    execFileSync('umount', [probe], { stdio: 'pipe' })
    return undefined
  } catch (error) {
    return `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}): run as root to test a full and a read-only disk`
  } finally {
    rmSync(probe, { recursive: true, force: true })
  }
}
const noTmpfs = { skip: whyNoTmpfs() ?? false }

/** A tiny tmpfs, unmounted when the test ends. */
async function mountTmpfs(t: Test, size: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-disk-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' })
  t.teardown(async () => {
    execFileSync('umount', ['-l', dir])
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

// mount(8) refuses a read-only remount while a file is open for writing (the sandbox keeps its
// append log open a moment after a write); a disk the kernel takes read-only does not wait.
const remount = (dir: string, mode: 'ro' | 'rw'): Promise<unknown> =>
  waitFor(() => (execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' }), true), {
    what: `a ${mode} remount of ${dir}`,
  })

for (const fault of ['full', 'read-only'] as const) {
  t.test(
    `a ${fault} disk: creates refused, nothing half-stored, writes resume without a restart`,
    noTmpfs,
    async (t) => {
      const dir = await mountTmpfs(t, '256k')
      // Room the test gives back later, as when something else on a shared disk is deleted: less than
      // the store holds by then, so that a recovery that rewrote the whole store would not fit.
      const filler = join(dir, 'filler')
      await writeFile(filler, Buffer.alloc(64 * 1024))
      const sandbox = await startControlSandbox(t, { DATA_FILE: join(dir, 'db.json') })
      // Long names of one length: a few hundred creates fill the disk, and each needs the same room
      // (a shorter one may still fit in the rest of the append log's last page).
      const create = async (i: number) => {
        const name = `Pet ${1000 + i} ${'x'.repeat(400)}`
        const answer = await sandbox.api('POST', '/pets', { name, categoryId: 7 })
        return { ...answer, name, pet: answer.status === 201 ? (answer.body as StoredPet) : undefined }
      }
      const answers = [await create(0)]
      if (fault === 'read-only') await remount(dir, 'ro')

      for (let i = 1; i < 1_000 && answers.at(-1)?.status === 201; i++) answers.push(await create(i))
      for (let i = 1_000; i < 1_003; i++) answers.push(await create(i))
      const refused = answers.filter((a) => a.status !== 201)
      t.equal(refused.length, 4, `the disk refuses a create (after ${answers.length - 4} acknowledged), and the next`)
      for (const answer of refused) {
        t.match(refusal(answer), REFUSED)
        t.match(answer.body, { message: /Nothing was stored/ })
      }
      checkPets(t, await petsOf(sandbox.origin), answers, 'served while the disk refuses')
      checkPets(t, (await onDisk(t, dir)).pets, answers, 'on disk while it refuses')

      if (fault === 'full') await rm(filler)
      else await remount(dir, 'rw')
      for (let i = 2_000; i < 2_002; i++) answers.push(await create(i))
      t.same(
        answers.slice(-2).map((a) => a.status),
        [201, 201],
        'writes succeed again once the disk is back, without a restart',
      )
      t.same(await leftovers(dir), [], 'no temporary file is left')
      checkPets(t, await petsOf((await restart(t, sandbox)).origin), answers, 'after a restart')
    },
  )
}

t.test(
  'a read-only disk: an eviction whose removal it refuses keeps serving, and the evicted comes back',
  noTmpfs,
  async (t) => {
    const dir = await mountTmpfs(t, '512k')
    const env = { DATA_FILE: join(dir, 'db.json'), MAX_NAMESPACES: '3', LOG_LEVEL: 'warn' }
    const sandbox = await startControlSandbox(t, env)
    // Files of its own, holding nothing a test still needs (reset to the initial data): evictable.
    t.equal((await sandbox.api('POST', '/pets', { name: 'Held', categoryId: 1 }, ns('held'))).status, 201)
    t.equal((await sandbox.control('POST', '/reset?namespace=held')).status, 200)
    const initial = namesOf(await petsOf(sandbox.origin, 'held'))
    await remount(dir, 'ro')

    // With the default namespace, three are kept: the second new name evicts the oldest, whose
    // removal the disk refuses.
    for (const name of ['second', 'third', 'fourth', 'default'])
      t.equal((await sandbox.api('GET', '/pets?limit=1', undefined, ns(name))).status, 200, `${name} is served`)
    t.notOk(sandbox.namespaces.find('held'), 'the oldest namespace was evicted')
    const refusedRemoval = (): boolean =>
      sandbox.logs.some(
        (line) =>
          line['namespace'] === 'held' && /the disk refused its removal: kept on disk/.test(String(line['msg'])),
      )
    await waitFor(refusedRemoval, { what: 'a warning that the disk refused the eviction' })

    await remount(dir, 'rw')
    // Its next use reads it back (the control API's reads do not bring a namespace back).
    const used = async (baseUrl: string) =>
      namesOf((await call(`${baseUrl}/pets?limit=100`, 'GET', undefined, { ...AUTH, ...ns('held') })).body)
    t.same(await used(sandbox.baseUrl), initial, 'the evicted namespace comes back as it was')
    t.same(await used((await restart(t, sandbox)).baseUrl), initial, 'a restart serves the same')
  },
)

// ---- 2. Each call failing

/** A sandbox whose file system fails what the test arms, aimed at the files of `faultyFile` (a name beside db.json). */
async function startOnFaultyDisk(t: Test, faultyFile: string, compaction?: Partial<Compaction>) {
  const dir = await tempDir(t)
  const fs = new FaultyFileSystem(join(dir, faultyFile))
  const sandbox = await startControlSandbox(t, { DATA_FILE: join(dir, 'db.json') }, { fileSystem: fs, compaction })
  return { dir, fs, sandbox }
}

const ERRNOS: Failure[] = ['EIO', 'ENOSPC', 'EDQUOT', 'EROFS']
const WRITES: Failure[] = [...ERRNOS, 'short', 'torn']
const COMPACTION: Partial<Compaction> = {
  afterRecords: 6,
  growWithImage: false,
  // No fold on a timer: the checks read the files while nothing is being written.
  idleAfterRecords: Number.MAX_SAFE_INTEGER,
  headroomBytes: 0,
}

/**
 * Each call on each file, with the failures it can meet. A truncate only comes when a failed
 * write's tail is cut, so it is failed together with the writes (which then write nothing).
 */
const CREATE_FAULTS: Array<{
  call: Call
  target: Target
  failures: Failure[]
  with?: Fault
  compaction?: Partial<Compaction>
}> = [
  { call: 'write', target: 'append log', failures: WRITES },
  { call: 'write', target: 'temp file', failures: WRITES },
  { call: 'fsync', target: 'append log', failures: ERRNOS },
  { call: 'fsync', target: 'temp file', failures: ERRNOS },
  { call: 'open', target: 'append log', failures: ERRNOS },
  { call: 'open', target: 'temp file', failures: ERRNOS },
  { call: 'close', target: 'append log', failures: ERRNOS },
  { call: 'close', target: 'temp file', failures: ERRNOS },
  { call: 'rename', target: 'temp file', failures: ERRNOS },
  { call: 'remove', target: 'append log', failures: ERRNOS },
  { call: 'syncDirectory', target: 'directory', failures: ERRNOS },
  {
    call: 'truncate',
    target: 'append log',
    failures: ERRNOS,
    with: { call: 'write', target: 'append log', failure: 'EIO', nth: 1, persistent: true },
    // No compaction: a tail is cut by a truncate only in an append log that holds records already.
    compaction: { afterRecords: Number.MAX_SAFE_INTEGER },
  },
]

let index = 0
for (const { call: failing, target, failures, with: companion, compaction } of CREATE_FAULTS) {
  for (const failure of failures) {
    // The fault starts at the 1st, 2nd or 3rd matching call, and stays until cleared.
    const nth = 1 + (index++ % 3)
    // A failed compaction does not refuse creates (the append log goes on), nor does a failed close
    // of a synced append log, and a short write is finished by the next.
    const blocks = failure !== 'short' && target !== 'temp file' && failing !== 'close'
    const also = companion ? ` with every ${companion.call} of the ${companion.target} (${companion.failure})` : ''
    t.test(
      `creates while ${failing} of the ${target} fails (${failure}) from call #${nth}${also}, then clears`,
      async (t) => {
        const { dir, fs, sandbox } = await startOnFaultyDisk(t, 'db.json', { ...COMPACTION, ...compaction })
        const load = new CreateLoad(sandbox.baseUrl, `${failing}-${target}-${failure}`, 4)
        try {
          await waitFor(() => load.acknowledged.length >= 10, { what: '10 creates before the fault', intervalMs: 5 })
          fs.arm({ call: failing, target, failure, nth, persistent: true }, ...(companion ? [companion] : []))
          await waitFor(() => fs.failedSinceArmed(failing) >= 3, { what: `3 failed ${failing} calls`, intervalMs: 5 })
          await load.pause()
          const refused = load.answers.filter((a) => a.status !== 201)
          // Each create needs the failing call: from its first failure on, none is acknowledged.
          const failedAt = fs.firstFailedAt ?? Number.POSITIVE_INFINITY
          const acknowledgedSince = namesOf(load.acknowledged.filter((a) => a.sentAt > failedAt))
          if (blocks) t.same(acknowledgedSince, [], `creates are refused while it lasts (${refused.length})`)
          else t.same(refused, [], 'no create is refused: the append log goes on')
          const first = load.acknowledged[0]?.pet?.id
          const reads = await Promise.all([`/pets?limit=5`, `/pets/${first}`].map((path) => sandbox.api('GET', path)))
          t.same(
            reads.map((r) => r.status),
            [200, 200],
            'reads are served while the fault lasts',
          )
          checkPets(t, (await onDisk(t, dir)).pets, load.answers, 'on disk during the fault')
          // A temporary image left by a failed compaction would hold the room the next write needs.
          t.same(await leftovers(dir), [], 'no temporary file is left during the fault')

          fs.clear()
          const clearedAt = performance.now()
          load.resume()
          const after = () => load.acknowledged.filter((a) => a.sentAt >= clearedAt).length
          await waitFor(() => after() >= 10, { what: '10 creates acknowledged once the fault cleared', intervalMs: 5 })
        } finally {
          fs.clear()
          await load.stop()
        }
        const wrong = load.answers.filter(
          (a) => a.status !== 201 && !(a.status === 503 && a.code === 'storage_unavailable' && a.retryAfter === '1'),
        )
        t.same(wrong, [], 'every create is answered 201, or 503 storage_unavailable with Retry-After: 1')
        checkPets(t, await petsOf(sandbox.origin), load.answers, 'served')
        const files = await onDisk(t, dir)
        checkPets(t, files.pets, load.answers, 'on disk')
        t.notMatch(files.warnings, /dropped the last/, 'nothing torn is left in the append log')
        t.same(await leftovers(dir), [], 'no temporary file is left')
        checkPets(t, await petsOf((await restart(t, sandbox)).origin), load.answers, 'after a restart')
      },
    )
  }
}

const RESET_FAULTS: Array<{ call: Call; target: Target; failures: Failure[] }> = [
  { call: 'write', target: 'append log', failures: WRITES },
  { call: 'fsync', target: 'append log', failures: ERRNOS },
  { call: 'open', target: 'append log', failures: ERRNOS },
  { call: 'remove', target: 'append log', failures: ['EIO'] },
  { call: 'syncDirectory', target: 'directory', failures: ERRNOS },
  { call: 'write', target: 'temp file', failures: ['EIO'] },
  { call: 'rename', target: 'temp file', failures: ['EIO'] },
]

for (const namespace of ['default', 'fresh'])
  for (const from of ['seed', 'snapshot'])
    for (const { call: failing, target, failures } of RESET_FAULTS)
      for (const failure of failures)
        t.test(
          `a reset of the ${namespace} namespace to a ${from} while ${failing} of the ${target} fails (${failure})`,
          async (t) => {
            // The fresh namespace's files are named after it: the faults aim at them.
            const { dir, fs, sandbox } = await startOnFaultyDisk(
              t,
              namespace === 'default' ? 'db.json' : `db.ns.${namespace}.json`,
            )
            const served = async () => namesOf(await petsOf(sandbox.origin, namespace))
            // Snapshots s7 and s8 of seeded pets, taken before any fault: a reset to one is one append log line.
            for (const seed of [7, 8]) {
              await sandbox.control('POST', '/reset?namespace=source', { seed, count: 5 })
              t.equal(
                (await sandbox.control('POST', '/snapshots', { name: `s${seed}`, namespace: 'source' })).status,
                201,
              )
            }
            const reset = (seed: number) =>
              sandbox.control(
                'POST',
                `/reset?namespace=${namespace}`,
                from === 'seed' ? { seed, count: 5 } : { snapshot: `s${seed}` },
              )
            for (let i = 0; i < 3; i++)
              t.equal(
                (await sandbox.api('POST', '/pets', { name: `kept-${i}`, categoryId: 1 }, ns(namespace))).status,
                201,
              )
            const before = await served()

            fs.arm({ call: failing, target, failure, nth: 1, persistent: true })
            const answer = await reset(7)
            fs.clear()
            const after = await served()
            if (answer.status === 200) t.not(after?.join(), before?.join(), 'a reset answered 200 is served')
            else {
              t.match(refusal(answer), REFUSED, 'a refused reset is a 503')
              t.same(after, before, 'a refused reset changed nothing that is served')
            }
            t.same(namesOf((await onDisk(t, dir, namespace)).pets), after, 'the files hold what is served')

            t.equal((await reset(8)).status, 200, 'once the fault clears, a reset is stored')
            const seeded = await served()
            t.same(await leftovers(dir), [], 'no temporary file is left')
            t.same(namesOf(await petsOf((await restart(t, sandbox)).origin, namespace)), seeded, 'a restart serves it')
          },
        )

const SNAPSHOT_FAULTS: Array<{ call: Call; target: Target; failures: Failure[] }> = [
  { call: 'open', target: 'temp file', failures: ERRNOS },
  { call: 'write', target: 'temp file', failures: WRITES },
  { call: 'fsync', target: 'temp file', failures: ERRNOS },
  { call: 'close', target: 'temp file', failures: ['EIO'] },
  { call: 'rename', target: 'temp file', failures: ERRNOS },
  { call: 'syncDirectory', target: 'directory', failures: ERRNOS },
]

for (const { call: failing, target, failures } of SNAPSHOT_FAULTS)
  for (const failure of failures)
    t.test(`a snapshot is taken while ${failing} of its ${target} fails (${failure})`, async (t) => {
      // The faults aim at the snapshot's own file (its temporary file, and the directory).
      const { dir, fs, sandbox } = await startOnFaultyDisk(t, 'db.snapshot.frozen.json')
      const take = () => sandbox.control('POST', '/snapshots', { name: 'frozen', namespace: 'source' })
      const listed = async () => namesOf((await sandbox.control('GET', '/snapshots')).body.snapshots)
      const files = async () => (await readdir(dir)).filter((f) => f.includes('snapshot'))
      await sandbox.control('POST', '/reset?namespace=source', { seed: 4, count: 30 })

      fs.arm({ call: failing, target, failure, nth: 1, persistent: true })
      const answer = await take()
      fs.clear()
      // Every call failed here is one a snapshot's write needs; a short write is finished by the next.
      t.equal(answer.status, failure === 'short' ? 201 : 503, 'the snapshot is refused unless the write was short')
      if (answer.status === 201) {
        t.same(await listed(), ['frozen'], 'a snapshot answered 201 is listed')
        t.same(await files(), ['db.snapshot.frozen.json'], 'and on disk')
      } else {
        t.match(refusal(answer), REFUSED, 'a refused snapshot is a 503')
        t.same(await listed(), [], 'a refused snapshot is not listed')
        t.same(await files(), [], 'and leaves no file')
        t.equal((await take()).status, 201, 'once the fault clears, it is taken')
      }
      t.equal((await sandbox.control('POST', '/reset?namespace=fork', { snapshot: 'frozen' })).body.pets, 30)
      const again = await call(`${(await restart(t, sandbox)).origin}/__admin/snapshots`, 'GET', undefined, ADMIN_AUTH)
      t.match(
        again.body,
        { count: 1, snapshots: [{ name: 'frozen', pets: 30, forks: ['fork'] }] },
        'a restart lists it',
      )
    })

// ---- 3. Crash points

const KILLS_PER_CHAIN = 25
const ENV = {
  API_KEYS: API_KEY,
  ADMIN_TOKEN,
  // A store large enough (some 2 MB) that a compaction's write lasts long enough for a kill to land in it.
  SEED: '7',
  SEED_COUNT: '20000',
  // Test-only (docs/reliability.md): fold the append log every 20 records, whatever the snapshot's size.
  ANIMAL_STORE_TEST_COMPACT_EVERY: '20',
}
const RESET_COUNT = 5
const petSchema = (await loadSpec()).schemas['Pet'] ?? {}
const seededNames = async (seed: number): Promise<string[]> =>
  (await generateAnimals(petSchema, seed, RESET_COUNT)).map((pet) => pet.name)
const crash = { resets: 0, snapshots: 0, forks: 0, inCompaction: 0 }

/** The moments of a kill, in turn, and the file whose first event after the watch starts is that moment. */
const MOMENTS = ['random', 'compaction write', 'snapshot rename'] as const
const WATCHED = { 'compaction write': '.db.json.tmp', 'snapshot rename': 'db.json' }

/** Resolves with true at the first event (created, written, renamed) on `name` in `dir`, or false after `timeoutMs`. */
function firstEventOn(dir: string, name: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const watcher = watch(dir, (_event, file) => file === name && done(true))
    const timer = setTimeout(() => done(false), timeoutMs)
    const done = (seen: boolean): void => {
      clearTimeout(timer)
      watcher.close()
      resolve(seen)
    }
  })
}

/** Runs `step` (its index) until stop() or a bound, or until the server is gone (a step throws). */
function repeat(step: (i: number) => Promise<void>) {
  let stopped = false
  const running = (async () => {
    for (let i = 0; i < 1000 && !stopped; i++) await step(i)
  })().catch(() => undefined)
  return {
    async stop(): Promise<void> {
      stopped = true
      await running
    },
  }
}

/** What a restart may serve in a namespace: its last acknowledged state, or the one in flight (undefined: a 404). */
type Expected = { last: string[] | undefined; inFlight: string[] | undefined }

/**
 * Resets of namespace `name` to seed after seed, each followed by a create there; every other step
 * from the last snapshot taken instead, which the steps between take. `expected` is what a restart
 * may serve; `snapshots` the snapshots acknowledged.
 */
function resetLoad(baseUrl: string, name: string, cycle: number, expected: Map<string, Expected>, snapshots: string[]) {
  const origin = new URL(baseUrl).origin
  const control = (path: string, body: unknown) => call(`${origin}/__admin${path}`, 'POST', body, ADMIN_AUTH)
  let snapshot: { name: string; pets: string[] } | undefined
  return repeat(async (i) => {
    const seed = cycle * 1000 + i
    const fromSnapshot = snapshot !== undefined && i % 2 === 1 ? snapshot : undefined
    const start = fromSnapshot?.pets ?? (await seededNames(seed))
    const pet = `R-${cycle}-${i}`
    const acknowledged = (state: string[]): void => void expected.set(name, { last: state, inFlight: state })
    expected.set(name, { last: expected.get(name)?.last, inFlight: start })
    const body = fromSnapshot ? { snapshot: fromSnapshot.name } : { seed, count: RESET_COUNT }
    if ((await control(`/reset?namespace=${name}`, body)).status !== 200) return
    acknowledged(start)
    crash.resets++
    expected.set(name, { last: start, inFlight: [...start, pet] })
    const created = await call(`${baseUrl}/pets`, 'POST', { name: pet, categoryId: 1 }, { ...AUTH, ...ns(name) })
    if (created.status !== 201) return
    acknowledged([...start, pet])
    if (fromSnapshot) return
    const frozen = `S-${name}-${cycle}-${i}`
    if ((await control('/snapshots', { name: frozen, namespace: name })).status !== 201) return
    snapshot = { name: frozen, pets: [...start, pet] }
    snapshots.push(frozen)
    crash.snapshots++
  })
}

/** Resets of six names in turn to seed after seed, every fifth step a deletion instead; `expected` as above. */
function forkLoad(origin: string, cycle: number, expected: Map<string, Expected>) {
  return repeat(async (i) => {
    const name = `fork-${i % 6}`
    const deleting = i % 5 === 4
    const seed = 500_000 + cycle * 1000 + i
    const state = deleting ? undefined : await seededNames(seed)
    expected.set(name, { last: expected.get(name)?.last, inFlight: state })
    const res = deleting
      ? await call(`${origin}/__admin/namespaces/${name}`, 'DELETE', undefined, ADMIN_AUTH)
      : await call(`${origin}/__admin/reset?namespace=${name}`, 'POST', { seed, count: RESET_COUNT }, ADMIN_AUTH)
    // A deletion of a name not there (404) leaves it absent too.
    if (res.status === 200 || (deleting && res.status === 404)) {
      expected.set(name, { last: state, inFlight: state })
      crash.forks++
    }
  })
}

/**
 * Each namespace of `expected` serves its last acknowledged state or the one in flight, which
 * becomes the state the next steps start from.
 */
async function checkStates(t: Test, origin: string, after: string, expected: Map<string, Expected>): Promise<void> {
  for (const [name, wanted] of expected) {
    const served = namesOf(await petsOf(origin, name))
    const same = (state: string[] | undefined): boolean => JSON.stringify(state) === JSON.stringify(served)
    t.ok(
      same(wanted.last) || same(wanted.inFlight),
      `${after}: namespace ${name} serves its last acknowledged state or the one in flight`,
      { found: served, wanted },
    )
    expected.set(name, { last: served, inFlight: served })
  }
}

async function killChain(t: Test, cli: string, chain: number, next: () => number): Promise<void> {
  const dataFile = join(await tempDir(t), 'db.json')
  const answers: Answer[] = []
  const resets = `resets-${chain}`
  const states = new Map<string, Expected>([[resets, { last: undefined, inFlight: undefined }]])
  const snapshots: string[] = []
  const check = async (origin: string, after: string): Promise<void> => {
    checkPets(t, await petsOf(origin), answers, after)
    const listed = new Set(
      namesOf((await call(`${origin}/__admin/snapshots`, 'GET', undefined, ADMIN_AUTH)).body.snapshots),
    )
    t.same(
      snapshots.filter((name) => !listed.has(name)),
      [],
      `${after}: every acknowledged snapshot is listed`,
    )
    await checkStates(t, origin, after, states)
  }

  for (let cycle = 0; cycle < KILLS_PER_CHAIN; cycle++) {
    const server = await spawnCli(t, { ...ENV, DATA_FILE: dataFile }, [], cli)
    const origin = new URL(server.baseUrl).origin
    await check(origin, `restart after kill ${cycle} of chain ${chain}`)
    const loads = [resetLoad(server.baseUrl, resets, cycle, states, snapshots), forkLoad(origin, cycle, states)]
    const creates = new CreateLoad(server.baseUrl, `C${chain}-${cycle}`, 8)
    // The load is on and compactions have begun before the moment is drawn.
    await waitFor(() => creates.acknowledged.length >= 25, { what: '25 creates acknowledged', timeoutMs: 30_000 })
    const moment = MOMENTS[cycle % MOMENTS.length] as (typeof MOMENTS)[number]
    if (moment === 'random') await sleep(Math.floor(next() * 250))
    else
      t.ok(
        await firstEventOn(dirname(dataFile), WATCHED[moment], 10_000),
        `kill ${cycle} of chain ${chain} at a ${moment}`,
      )
    server.child.kill('SIGKILL')
    await server.exited
    await Promise.all([creates.stop(), ...loads.map((load) => load.stop())])
    answers.push(...creates.answers)
    // A temporary image is only on disk while a compaction writes it: the kill came in one.
    if (existsSync(join(dirname(dataFile), '.db.json.tmp'))) crash.inCompaction++
  }

  const last = await spawnCli(t, { ...ENV, DATA_FILE: dataFile }, [], cli)
  await check(new URL(last.baseUrl).origin, `the last restart of chain ${chain}`)
  last.child.kill('SIGTERM')
  t.equal(await last.exited, 0, `chain ${chain}: the last server stops cleanly`)
  t.same(await leftovers(dirname(dataFile)), [], `chain ${chain}: no temporary file is left`)
}

t.test(`SIGKILL ${2 * KILLS_PER_CHAIN} times during a load, in compactions too`, async (t) => {
  const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31))
  t.comment(`CRASH_SEED=${seed}`)
  const cli = await buildCli(t)
  const next = seededRandom(seed)
  // Two chains of kills side by side, each on its own data file.
  await Promise.all([0, 1].map((chain) => killChain(t, cli, chain, next)))
  t.comment(`crash points: ${JSON.stringify(crash)}`)
  // Each load really ran, and some kills landed in a compaction: else this test proves nothing.
  t.ok(crash.resets > 0 && crash.snapshots > 0 && crash.forks > 0, 'resets, snapshots and forks were acknowledged')
  t.ok(crash.inCompaction > 0, 'some kills came while a compaction wrote its snapshot')
})
