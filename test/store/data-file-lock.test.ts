// One writer per data file: a second sandbox on a data file in use refuses to start, naming the file
// and its holder; the lock goes with its holder (a clean stop, a kill -9) and a restart starts at
// once; a holder out of sight counts as gone only once its heartbeat is stale. And a start, once it
// holds the lock, removes the temporary files that kills and failures left beside the data file.
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import { DataFileLock, LOCK_TIMING } from '../../src/store/data-file-lock.js'
import { startControlSandbox } from '../support/control.js'
import { postPet, runCliToEnd, spawnCli, tempDir, testConfig, waitFor, type StoredPet } from '../support/sandbox.js'

const ENV = { API_KEYS: 'test-key-1' }
const TEAM = { 'x-sandbox-namespace': 'team' }

t.test(
  'two processes on one data file: the second refuses with one line; after a kill -9 or a stop, a start succeeds at once',
  async (t) => {
    const dataFile = join(await tempDir(t), 'db.json')
    const first = await spawnCli(t, { ...ENV, DATA_FILE: dataFile })
    const kept = await postPet(first.baseUrl, { name: 'Kept', categoryId: 1 })
    t.equal(kept.status, 201)
    const keptPet = (await kept.json()) as StoredPet

    const second = await runCliToEnd({ ...ENV, DATA_FILE: dataFile })
    t.equal(second.code, 2, 'the second start exits non-zero')
    const lines = second.stderr.trim().split('\n')
    t.equal(lines.length, 1, 'with one line')
    t.match(
      lines[0],
      `animal-store-sandbox: Data file ${dataFile} is in use by another sandbox, host ${hostname()} pid ${first.child.pid}`,
      'naming the file, the host and the pid',
    )
    t.match(lines[0], `lock ${dataFile}.lock`)
    t.equal((await postPet(first.baseUrl, { name: 'After', categoryId: 1 })).status, 201, 'the first goes on')

    // The holder keeps its lock fresh: a start out of its sight judges it by that.
    const { mtimeMs } = await stat(`${dataFile}.lock`)
    await waitFor(async () => (await stat(`${dataFile}.lock`)).mtimeMs > mtimeMs, {
      what: 'a heartbeat of the lock',
      timeoutMs: LOCK_TIMING.heartbeatMs * 5,
    })

    first.child.kill('SIGKILL')
    await first.exited
    t.ok(await stat(`${dataFile}.lock`), 'a kill -9 leaves its lock behind')
    // Refused, rather than waiting, if the lock were still taken: this start succeeding is the proof.
    const afterKill = await spawnCli(t, { ...ENV, DATA_FILE: dataFile })
    const served = await fetch(`${afterKill.baseUrl}/pets/${keptPet.id}`, {
      headers: { authorization: 'Bearer test-key-1' },
    })
    t.equal(served.status, 200, 'the start after a kill -9 takes over its lock and serves its pets')
    t.match(
      await readFile(`${dataFile}.lock`, 'utf8'),
      `"pid":${afterKill.child.pid},`,
      'the lock names the new holder',
    )

    afterKill.child.kill('SIGTERM')
    t.equal(await afterKill.exited, 0)
    await t.rejects(stat(`${dataFile}.lock`), { code: 'ENOENT' }, 'a clean stop removes the lock')
    const afterStop = await spawnCli(t, { ...ENV, DATA_FILE: dataFile })
    t.equal((await postPet(afterStop.baseUrl)).status, 201, 'and a start after it succeeds')
    afterStop.child.kill('SIGTERM')
    t.equal(await afterStop.exited, 0)
  },
)

t.test('a holder out of sight (another host) keeps the file until its heartbeat is stale', async (t) => {
  const config = await testConfig(t)
  const dataFile = config.dataFile as string
  const lockFile = `${dataFile}.lock`
  const elsewhere = {
    file: '/data/db.json',
    host: 'other-host',
    pid: 1,
    start: 'other-start',
    since: '2026-01-01T00:00:00.000Z',
    boot: 'another-machine',
    pidSpace: 'pid:[1]',
  }
  // A start killed between creating its lock and naming itself in it.
  await writeFile(lockFile, '')
  await t.rejects(startSandbox(config, createLogger('silent')), { message: /in use by a sandbox that is starting/ })
  await writeFile(lockFile, JSON.stringify(elsewhere))
  await t.rejects(startSandbox(config, createLogger('silent')), {
    message: new RegExp(
      `^Data file ${dataFile} is in use by another sandbox, host other-host pid 1 .*once its lock is 10 s old`,
    ),
  })
  t.equal(await readFile(lockFile, 'utf8'), JSON.stringify(elsewhere), 'its lock is left as it was')

  const stale = new Date(Date.now() - LOCK_TIMING.staleMs - 5_000)
  await utimes(lockFile, stale, stale)
  const sandbox = await startSandbox(config, createLogger('silent'))
  t.teardown(() => sandbox.close())
  t.match(
    JSON.parse(await readFile(lockFile, 'utf8')),
    { pid: process.pid, host: hostname() },
    'a stale lock is taken over',
  )
})

t.test(
  'in one process: a second start on a held file is refused; a lock of this pid from an earlier start is taken over',
  async (t) => {
    const config = await testConfig(t)
    const dataFile = config.dataFile as string
    const sandbox = await startSandbox(config, createLogger('silent'))
    await t.rejects(startSandbox(config, createLogger('silent')), {
      message: `Data file ${dataFile} is in use by this process (lock ${dataFile}.lock): stop it or use another DATA_FILE`,
    })
    // What a container restarted after a kill -9 finds: its own pid (PID 1 again), from a start that is gone.
    const earlier = { ...JSON.parse(await readFile(`${dataFile}.lock`, 'utf8')), start: 'an-earlier-start' }
    await sandbox.close()
    await writeFile(`${dataFile}.lock`, JSON.stringify(earlier))
    const restarted = await startSandbox(config, createLogger('silent'))
    t.teardown(() => restarted.close())
    t.not(JSON.parse(await readFile(`${dataFile}.lock`, 'utf8')).start, 'an-earlier-start', 'taken over at once')
  },
)

t.test('a failed start releases the lock; a store in memory needs none', async (t) => {
  const config = await testConfig(t)
  await writeFile(config.dataFile as string, 'not json')
  await t.rejects(startSandbox(config, createLogger('silent')), { message: /is not valid JSON/ })
  await t.rejects(stat(`${config.dataFile}.lock`), { code: 'ENOENT' })
  const lock = await DataFileLock.acquire(config.dataFile as string)
  await lock.release()

  // Two in memory at once: nothing to lock.
  const inMemory = await testConfig(t, { DATA_FILE: ':memory:' })
  const one = await startSandbox(inMemory, createLogger('silent'))
  const two = await startSandbox(inMemory, createLogger('silent'))
  t.teardown(() => Promise.all([one.close(), two.close()]))
  for (const sandbox of [one, two])
    t.equal((await fetch(`${sandbox.origin}/healthz`)).status, 200, `${sandbox.origin} serves beside the other`)
})

t.test('a start removes the temporary files left beside its data file, and nothing else', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  // Real files of every kind beside the data file: namespaces' and a snapshot's.
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.equal((await first.api('POST', '/pets', { name: 'Team pet', categoryId: 1 }, TEAM)).status, 201)
  t.equal((await first.control('POST', '/snapshots', { name: 'nightly', namespace: 'team' })).status, 201)
  t.equal((await first.control('POST', '/reset?namespace=fork', { snapshot: 'nightly' })).status, 200)
  await first.close()
  const before = await readdir(dir)
  for (const name of ['db.ns.team.json', 'db.snapshot.nightly.json', 'db.ns.fork.json'])
    t.ok(before.includes(name), `${name} is there`)
  const temporary = ['.db.json.tmp', '.db.ns.team.json.tmp', '.db.ns.gone.json.tmp', '.db.snapshot.nightly.json.tmp']
  const others = ['.other.json.tmp', '.db.json.bak.tmp', 'db.json.tmp', 'notes.txt']
  for (const name of [...temporary, ...others]) await writeFile(join(dir, name), 'left by a kill')

  const sandbox = await startControlSandbox(t, { DATA_FILE: dataFile })
  const after = await readdir(dir)
  t.same(
    temporary.filter((name) => after.includes(name)),
    [],
    'the temporary files of the data file, its namespaces and its snapshots are gone',
  )
  t.same(
    after.filter((name) => name !== 'db.json.lock').sort(),
    [...before, ...others].sort(),
    'every other file is still there',
  )
  t.equal(
    (await sandbox.api('GET', '/pets?limit=100', undefined, TEAM)).body.length,
    61,
    'the namespace is served as before',
  )
  t.equal((await sandbox.api('GET', '/pets?limit=100', undefined, { 'x-sandbox-namespace': 'fork' })).body.length, 61)
  t.equal((await sandbox.control('GET', '/snapshots')).body.count, 1, 'and the snapshot')
})
