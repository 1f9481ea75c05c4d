// Crash points: the real server process (the command built from src/) is killed with SIGKILL
// during a heavy create load, 50 times, with a compaction every 20 records. The moment of a kill
// is, in turn: a random one; the moment a compaction starts writing its new snapshot; the moment
// that snapshot is renamed into place (before the directory fsync and the removal of the old
// journal). Each kill is followed by a restart on the same data file, which must serve every pet
// acknowledged so far, exactly as acknowledged; an id acknowledged once is never acknowledged
// again. Two chains of kills run side by side, each on its own data file. CRASH_SEED replays the
// random moments of a run (its seed is printed).
// Alongside, one client resets a namespace of its own to seed after seed, creating one pet there
// after each reset (each reset one journal line, the first one the start of a journal alone): a
// restart serves the state of the last of those acknowledged, or of the one in flight. Every other
// step freezes that namespace as a named snapshot, and the step after resets it to the last one
// acknowledged instead of a seed: a restart lists every snapshot acknowledged.
// And one more client resets (forks) a few namespaces in turn, deleting every fifth: each reset
// one line of the namespace's journal, folded every 20 lines. A restart serves each name as its
// last acknowledged step left it (a deleted name is a 404), or as the one in flight.
import { watch } from 'node:fs'
import { access } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { buildCli, postPet, spawnCli, tempDir, waitFor, type StoredPet } from '../support/sandbox.js'
import { seededRandom } from '../support/random.js'
import { loadSpec } from '../../src/contract/load.js'
import { generateAnimals } from '../../src/store/seed.js'

const CHAINS = 2
const KILLS_PER_CHAIN = 25
const CLIENTS = 8
/** A bound on the creates of one client between two kills; a kill comes long before. */
const MAX_CREATES_PER_CLIENT = 5_000
/** Creates acknowledged before the moment of the kill is drawn: the load is on, compactions have begun. */
const ACKNOWLEDGED_BEFORE_DRAW = 25
/** The moment of the kill: up to this long after that. */
const KILL_WINDOW_MS = 250
const ADMIN = { authorization: 'Bearer crash-admin' }
const ENV = {
  API_KEYS: 'k',
  ADMIN_TOKEN: 'crash-admin',
  // A store large enough (some 2 MB) that a compaction's write lasts long enough for a kill to land in it.
  SEED: '7',
  SEED_COUNT: '20000',
  // Test-only (docs/reliability.md): fold the journal every 20 records, whatever the snapshot's size.
  ANIMAL_STORE_TEST_COMPACT_EVERY: '20',
}

// 50 kills and restarts with three loads between them: about 90 s alone, several times that on a
// machine loaded ten times over its cores, where 5 minutes cut it short. A bound for a hang only.
t.setTimeout(10 * 60_000)

const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31))
const figures = {
  kills: 0,
  acknowledged: 0,
  lost: 0,
  reused: 0,
  inCompaction: 0,
  atRename: 0,
  tornTails: 0,
  resets: 0,
  resetStatesWrong: 0,
  snapshots: 0,
  snapshotsLost: 0,
  forks: 0,
  forkStatesWrong: 0,
}
const RESET_COUNT = 5
const petSchema = (await loadSpec()).schemas['Pet'] ?? {}
const seededNames = async (seed: number): Promise<string[]> =>
  (await generateAnimals(petSchema, seed, RESET_COUNT)).map((pet) => pet.name)

type Moment = 'random' | 'compaction write' | 'snapshot rename'
const MOMENTS: Moment[] = ['random', 'compaction write', 'snapshot rename']
/** The file whose first event after the watch starts is the moment to kill. */
const WATCHED: Record<Exclude<Moment, 'random'>, string> = {
  'compaction write': '.db.json.tmp',
  'snapshot rename': 'db.json',
}

/** Resolves with true at the first event (created, written, renamed) on `name` in `dir`, or false after `timeoutMs`. */
function firstEventOn(dir: string, name: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const watcher = watch(dir, (_event, file) => {
      if (file === name) done(true)
    })
    const timer = setTimeout(() => done(false), timeoutMs)
    const done = (seen: boolean): void => {
      clearTimeout(timer)
      watcher.close()
      resolve(seen)
    }
  })
}

/** Calls the control API; `body` is sent as JSON. */
const admin = (origin: string, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${origin}/__admin${path}`, {
    method,
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

/** Runs `step` (its index) until stop() or a bound, or until the server is gone (a step throws). */
function repeat(step: (i: number) => Promise<void>, bound: number) {
  let stopped = false
  const running = (async () => {
    try {
      for (let i = 0; i < bound && !stopped; i++) await step(i)
    } catch {
      // the server is gone
    }
  })()
  return {
    async stop(): Promise<void> {
      stopped = true
      await running
    },
  }
}

/** Creates from CLIENTS clients until the server is gone; each 201 is handed to `acknowledge`. */
function createLoad(baseUrl: string, chain: number, cycle: number, acknowledge: (pet: StoredPet) => void) {
  const clients = Array.from({ length: CLIENTS }, (_, c) =>
    repeat(async (i) => {
      const name = `C${chain}-${cycle}-${c}-${i}`
      const res = await postPet(baseUrl, { name, categoryId: c + 1 }, { authorization: 'Bearer k' })
      if (res.status === 201) acknowledge((await res.json()) as StoredPet)
      else await res.arrayBuffer()
    }, MAX_CREATES_PER_CLIENT),
  )
  return { stop: () => Promise.all(clients.map((client) => client.stop())) }
}

/** What a restart may serve in a namespace: its last acknowledged state, or the one in flight (undefined: none, a 404). */
type Expected = { last: string[] | undefined; inFlight: string[] | undefined }

/**
 * Resets of namespace `ns` to seed after seed, each followed by a create there, until the server is
 * gone; every other step from the last snapshot taken instead, which the steps between take.
 * `expected` is what a restart may serve; `snapshots` the snapshots acknowledged.
 */
function resetLoad(baseUrl: string, ns: string, cycle: number, expected: Map<string, Expected>, snapshots: string[]) {
  const origin = new URL(baseUrl).origin
  let snapshot: { name: string; pets: string[] } | undefined
  const step = async (i: number): Promise<void> => {
    const seed = cycle * 1000 + i
    const fromSnapshot = snapshot !== undefined && i % 2 === 1 ? snapshot : undefined
    const start = fromSnapshot?.pets ?? (await seededNames(seed))
    const name = `R-${cycle}-${i}`
    const acknowledged = (state: string[]): void => void expected.set(ns, { last: state, inFlight: state })
    expected.set(ns, { last: expected.get(ns)?.last, inFlight: start })
    const body = fromSnapshot ? { snapshot: fromSnapshot.name } : { seed, count: RESET_COUNT }
    const reset = await admin(origin, 'POST', `/reset?namespace=${ns}`, body)
    await reset.arrayBuffer()
    if (reset.status !== 200) return
    acknowledged(start)
    figures.resets++
    expected.set(ns, { last: start, inFlight: [...start, name] })
    const headers = { authorization: 'Bearer k', 'x-sandbox-namespace': ns }
    const created = await postPet(baseUrl, { name, categoryId: 1 }, headers)
    await created.arrayBuffer()
    if (created.status !== 201) return
    acknowledged([...start, name])
    if (fromSnapshot) return
    const frozen = `S-${ns}-${cycle}-${i}`
    const taken = await admin(origin, 'POST', '/snapshots', { name: frozen, namespace: ns })
    await taken.arrayBuffer()
    if (taken.status !== 201) return
    snapshot = { name: frozen, pets: [...start, name] }
    snapshots.push(frozen)
    figures.snapshots++
  }
  return repeat(step, 1000)
}

/** The namespaces the fork load resets in turn. */
const FORK_NAMES = Array.from({ length: 6 }, (_, i) => `fork-${i}`)

/**
 * Resets of the FORK_NAMES in turn to seed after seed, every fifth step a deletion instead, until
 * the server is gone; `expected` holds, by name, what a restart may serve.
 */
function forkLoad(baseUrl: string, cycle: number, expected: Map<string, Expected>) {
  const origin = new URL(baseUrl).origin
  return repeat(async (i) => {
    const name = FORK_NAMES[i % FORK_NAMES.length] as string
    const deleting = i % 5 === 4
    const seed = 500_000 + cycle * 1000 + i
    const state = deleting ? undefined : await seededNames(seed)
    expected.set(name, { last: expected.get(name)?.last, inFlight: state })
    const res = deleting
      ? await admin(origin, 'DELETE', `/namespaces/${name}`)
      : await admin(origin, 'POST', `/reset?namespace=${name}`, { seed, count: RESET_COUNT })
    await res.arrayBuffer()
    // A deletion of a name not there (404) leaves it absent too.
    if (res.status === 200 || (deleting && res.status === 404)) {
      expected.set(name, { last: state, inFlight: state })
      figures.forks++
    }
  }, 1000)
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  )

/**
 * Whether each namespace of `expected` serves its last acknowledged state or the one in flight
 * (a namespace never changed is not on disk: reading it is a 404); a wrong one fails the test and
 * is counted. What a restart serves is the state the next steps start from (the step in flight
 * may have landed).
 */
async function checkStates(t: Test, origin: string, after: string, expected: Map<string, Expected>): Promise<number> {
  let wrong = 0
  for (const [name, wanted] of expected) {
    const res = await fetch(`${origin}/__admin/pets?namespace=${name}`, { headers: ADMIN })
    const body = (await res.json()) as StoredPet[]
    const served = res.status === 404 ? undefined : res.status === 200 ? body.map((pet) => pet.name) : body
    if ([wanted.last, wanted.inFlight].some((state) => JSON.stringify(state) === JSON.stringify(served))) {
      const state = served as string[] | undefined
      expected.set(name, { last: state, inFlight: state })
      continue
    }
    wrong++
    t.fail(`${after}: namespace ${name} serves its last acknowledged state or the one in flight`, {
      found: served,
      wanted,
    })
  }
  return wrong
}

async function killChain(t: Test, cli: string, chain: number, next: () => number): Promise<void> {
  const dataFile = join(await tempDir(t), 'db.json')
  const acknowledged = new Map<number, StoredPet>()
  const ns = `resets-${chain}`
  const resetStates = new Map<string, Expected>([[ns, { last: undefined, inFlight: undefined }]])
  const forkStates = new Map<string, Expected>()
  const snapshots: string[] = []

  const check = async (origin: string, after: string): Promise<void> => {
    const served = new Map(
      ((await (await admin(origin, 'GET', '/pets')).json()) as StoredPet[]).map((pet) => [pet.id, pet]),
    )
    const lost = [...acknowledged.values()].filter((pet) => JSON.stringify(served.get(pet.id)) !== JSON.stringify(pet))
    figures.lost += lost.length
    if (lost.length > 0) t.same(lost.slice(0, 5), [], `${after}: every acknowledged pet is served, as acknowledged`)

    const listed = (await (await admin(origin, 'GET', '/snapshots')).json()) as { snapshots: Array<{ name: string }> }
    const names = new Set(listed.snapshots.map((s) => s.name))
    const lostSnapshots = snapshots.filter((name) => !names.has(name))
    figures.snapshotsLost += lostSnapshots.length
    if (lostSnapshots.length > 0) t.same(lostSnapshots, [], `${after}: every acknowledged snapshot is listed`)
    figures.resetStatesWrong += await checkStates(t, origin, after, resetStates)
    figures.forkStatesWrong += await checkStates(t, origin, after, forkStates)
  }

  for (let cycle = 0; cycle < KILLS_PER_CHAIN; cycle++) {
    const server = await spawnCli(t, { ...ENV, DATA_FILE: dataFile }, [], cli)
    if (/dropped the last \d+ bytes/.test(server.stderr)) figures.tornTails++
    await check(new URL(server.baseUrl).origin, `restart after kill ${cycle}`)
    const resets = resetLoad(server.baseUrl, ns, cycle, resetStates, snapshots)
    const forks = forkLoad(server.baseUrl, cycle, forkStates)

    let acknowledgedNow = 0
    const load = createLoad(server.baseUrl, chain, cycle, (pet) => {
      acknowledgedNow++
      if (acknowledged.has(pet.id)) figures.reused++
      acknowledged.set(pet.id, pet)
    })
    await waitFor(() => acknowledgedNow >= ACKNOWLEDGED_BEFORE_DRAW, {
      what: `${ACKNOWLEDGED_BEFORE_DRAW} creates acknowledged`,
      timeoutMs: 30_000,
    })
    const moment = MOMENTS[cycle % MOMENTS.length] as Moment
    if (moment === 'random') await sleep(Math.floor(next() * KILL_WINDOW_MS))
    else {
      const seen = await firstEventOn(dirname(dataFile), WATCHED[moment], 10_000)
      t.ok(seen, `kill ${cycle} of chain ${chain} at a ${moment}`)
      if (moment === 'snapshot rename') figures.atRename++
    }
    server.child.kill('SIGKILL')
    await server.exited
    await Promise.all([load.stop(), resets.stop(), forks.stop()])
    figures.kills++
    figures.acknowledged += acknowledgedNow
    // A temporary snapshot is only on disk while a compaction writes it: the kill came in one.
    if (await exists(join(dirname(dataFile), '.db.json.tmp'))) figures.inCompaction++
  }

  const last = await spawnCli(t, { ...ENV, DATA_FILE: dataFile }, [], cli)
  await check(new URL(last.baseUrl).origin, 'the last restart')
  last.child.kill('SIGTERM')
  t.equal(await last.exited, 0, `chain ${chain}: the last server stops cleanly`)
  t.notOk(await exists(join(dirname(dataFile), '.db.json.tmp')), `chain ${chain}: no temporary snapshot is left`)
}

t.test(`SIGKILL ${CHAINS * KILLS_PER_CHAIN} times during a create load, in compactions too`, async (t) => {
  t.comment(`CRASH_SEED=${seed}`)
  const cli = await buildCli(t)
  const next = seededRandom(seed)
  await Promise.all(Array.from({ length: CHAINS }, (_, chain) => killChain(t, cli, chain, next)))
  t.comment(
    `crash points: ${figures.kills} kills, ${figures.acknowledged} creates acknowledged, lost ${figures.lost}, ` +
      `ids acknowledged twice ${figures.reused}, kills while a compaction wrote its snapshot ${figures.inCompaction}, ` +
      `at a snapshot's rename ${figures.atRename}, ` +
      `torn journal ends dropped at restart ${figures.tornTails}; namespace resets acknowledged ${figures.resets}, ` +
      `restarts serving another state ${figures.resetStatesWrong}; snapshots acknowledged ${figures.snapshots}, ` +
      `lost ${figures.snapshotsLost}; namespaces with no file of their own reset or deleted ${figures.forks}, ` +
      `restarts serving another state ${figures.forkStatesWrong}`,
  )
  t.equal(figures.kills, CHAINS * KILLS_PER_CHAIN, 'every kill happened')
  t.equal(figures.lost, 0, 'no acknowledged pet is ever lost')
  t.equal(figures.reused, 0, 'no id is acknowledged twice')
  t.equal(figures.resetStatesWrong, 0, 'every restart serves the last acknowledged reset state, or the one in flight')
  t.ok(figures.resets > 0, 'resets were acknowledged between the kills')
  t.ok(figures.snapshots > 0, 'snapshots were acknowledged between the kills')
  t.equal(figures.snapshotsLost, 0, 'every acknowledged snapshot survives')
  t.ok(figures.forks > 0, 'namespaces with no file of their own were reset between the kills')
  t.equal(figures.forkStatesWrong, 0, 'every restart serves each of them as its last acknowledged step left it')
  t.ok(figures.inCompaction > 0, 'some kills came while a compaction wrote its snapshot')
})
