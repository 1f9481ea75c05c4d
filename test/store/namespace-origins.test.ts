// A reset of a namespace that has no file of its own (a fork of a snapshot, a seed, its initial
// data) is one line in the namespaces' shared log of origins, not a file of its own: checked
// through HTTP and restarts (the first sandbox stopped as a kill leaves it: nothing flushed), with
// a look at the files where the layout is the point, and with the log's writes failing.
import { appendFile, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { createLogger } from '../../src/logger.js'
import { startSandbox, SERVER_LIMITS } from '../../src/sandbox.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, startControlSandbox } from '../support/control.js'
import { stopAsKilled, tempDir, testConfig } from '../support/sandbox.js'
import { FaultyFileSystem, type Call as FileCall, type Failure } from './faulty-file-system.js'

async function served(sandbox: { origin: string }, namespace: string): Promise<unknown> {
  const res = await call(`${sandbox.origin}/__admin/pets?namespace=${namespace}`, 'GET', undefined, ADMIN_AUTH)
  return res.status === 200 ? res.body : res.status
}

const namespaceFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir)).filter((name) => name.includes('.ns.')).sort()

const logLines = async (dataFile: string): Promise<unknown[]> =>
  (await readFile(join(dataFile, '..', 'db.namespaces.json.journal'), 'utf8'))
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as unknown)

/** A sandbox on `dataFile` with snapshot `s` of 5 seeded pets (taken from namespace `source`). */
async function withSnapshot(t: Parameters<typeof startControlSandbox>[0], dataFile: string) {
  const sandbox = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.equal((await sandbox.admin('POST', '/reset?namespace=source', { seed: 3, count: 5 })).status, 200)
  t.equal((await sandbox.admin('POST', '/snapshots', { name: 's', namespace: 'source' })).status, 201)
  return sandbox
}

t.test(
  'a fork of a new namespace is one line in the shared log, no file of its own; a restart serves it',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const first = await withSnapshot(t, dataFile)
    const filesBefore = await namespaceFiles(dir)
    t.equal((await first.admin('POST', '/reset?namespace=f', { snapshot: 's' })).status, 200)
    t.equal((await first.admin('POST', '/reset?namespace=g', { seed: 8, count: 4 })).status, 200)
    t.same(await namespaceFiles(dir), filesBefore, 'neither namespace made a file of its own')
    t.same(
      (await logLines(dataFile)).slice(-2),
      [
        { namespace: 'f', reset: 'snapshot:s', initial: first.store.origin },
        { namespace: 'g', reset: 'seed:8:4', initial: first.store.origin },
      ],
      'each reset is one line of the log, naming the data it came from',
    )
    const f = await served(first, 'f')
    const g = await served(first, 'g')
    t.equal((f as unknown[]).length, 5, 'the fork holds the snapshot')
    stopAsKilled(first)

    const second = await startControlSandbox(t, { DATA_FILE: dataFile })
    t.same(await served(second, 'f'), f, 'a restart serves the fork')
    t.same(await served(second, 'g'), g, 'and the seeded namespace')
    const snapshots = await second.admin('GET', '/snapshots')
    t.match(snapshots.body.snapshots[0].forks, ['f'], 'the fork is listed with its snapshot before it is used')
    t.equal((await second.admin('DELETE', '/snapshots/s')).status, 409, 'so the snapshot cannot be deleted under it')
    await second.close()
    t.same(await namespaceFiles(dir), filesBefore, 'a clean stop writes no file of their own either')
  },
)

t.test(
  'a first create starts the namespace own journal, which begins with the reset; its files come first',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const first = await withSnapshot(t, dataFile)
    await first.admin('POST', '/reset?namespace=f', { snapshot: 's' })
    t.equal(
      (await first.api('POST', '/pets', { name: 'Added', categoryId: 1 }, { 'x-sandbox-namespace': 'f' })).status,
      201,
    )
    const journal = (await readFile(join(dir, 'db.ns.f.json.journal'), 'utf8')).trimEnd().split('\n').slice(1)
    t.same(JSON.parse(journal[0] as string), { reset: 'snapshot:s' }, 'its journal begins with the fork')
    t.match(JSON.parse(journal[1] as string), { name: 'Added' }, 'then the create')
    // A reset now goes to its own journal: the log still names the snapshot, which the files override.
    t.equal((await first.admin('POST', '/reset?namespace=f', { seed: 4, count: 2 })).status, 200)
    await first.api('POST', '/pets', { name: 'AfterSeed', categoryId: 1 }, { 'x-sandbox-namespace': 'f' })
    const f = await served(first, 'f')
    t.same(
      (f as Array<{ name: string }>).map((pet) => pet.name).at(-1),
      'AfterSeed',
      'the seed and the create after it are served',
    )
    t.same(
      (await logLines(dataFile)).filter((line) => (line as { namespace: string }).namespace === 'f'),
      [{ namespace: 'f', reset: 'snapshot:s', initial: first.store.origin }],
      'the log holds only the reset made before the namespace had a file',
    )
    stopAsKilled(first)
    const second = await startControlSandbox(t, { DATA_FILE: dataFile })
    t.same(await served(second, 'f'), f, 'a restart serves its own files, not the log')
  },
)

t.test('a deleted or evicted namespace leaves the log: a restart does not bring it back', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const first = await withSnapshot(t, dataFile)
  for (const name of ['deleted', 'evicted', 'kept'])
    await first.admin('POST', `/reset?namespace=${name}`, { snapshot: 's' })
  t.equal((await first.admin('DELETE', '/namespaces/deleted')).status, 200)
  t.same((await logLines(dataFile)).at(-1), { namespace: 'deleted', gone: true }, 'the deletion is a line of the log')
  stopAsKilled(first)

  // Three namespaces at most (the default one and two more): a third evicts one that holds nothing.
  const second = await startControlSandbox(t, { DATA_FILE: dataFile, MAX_NAMESPACES: '3' })
  t.equal(await served(second, 'deleted'), 404, 'the deleted namespace is gone after a restart')
  t.equal((await served(second, 'kept')) instanceof Array, true, 'kept is there')
  t.equal((await served(second, 'evicted')) instanceof Array, true, 'evicted is there until it is evicted')
  // Reset by its owner, it holds nothing a test gave it: the least recently used such one goes.
  t.equal((await second.admin('POST', '/reset?namespace=evicted')).status, 200)
  await second.admin('GET', '/pets?namespace=kept')
  await second.admin('POST', '/reset?namespace=source2')
  t.notOk(
    (await second.admin('GET', '/namespaces')).body.namespaces.some((n: { name: string }) => n.name === 'evicted'),
    'evicted is evicted',
  )
  await second.namespaces.flush()
  const folded = JSON.parse(await readFile(join(dir, 'db.namespaces.json'), 'utf8')) as {
    origins: Array<{ namespace: string }>
  }
  t.same(
    folded.origins.map((origin) => origin.namespace).sort(),
    ['kept', 'source', 'source2'],
    'a clean stop folds the log, without the evicted namespace',
  )
  stopAsKilled(second)
  const third = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.equal(await served(third, 'evicted'), 404, 'the evicted namespace does not come back')
})

t.test(
  'a deletion of a namespace whose data is its line in the log, killed at any line it writes: a restart serves it as before, or not at all',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const log = join(dir, 'db.namespaces.json.journal')
    const first = await startControlSandbox(t, { DATA_FILE: dataFile })
    t.equal((await first.admin('POST', '/reset?namespace=f', { seed: 8, count: 4 })).status, 200)
    const before = await served(first, 'f')
    stopAsKilled(first)

    // Read back by a restart, the namespace is deleted there: its store was opened from the log.
    const second = await startControlSandbox(t, { DATA_FILE: dataFile })
    const kept = await readFile(log, 'utf8')
    t.equal((await second.admin('DELETE', '/namespaces/f')).status, 200)
    const written = (await readFile(log, 'utf8')).slice(kept.length)
    stopAsKilled(second)
    t.same(
      written
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
      [{ namespace: 'f', gone: true }],
      'the deletion is one line of the log',
    )

    // What a kill leaves after each whole line the deletion wrote, its last one excepted.
    const lines = written.split(/(?<=\n)/).slice(0, -1)
    for (let count = 0; count <= lines.length; count++) {
      await writeFile(log, kept + lines.slice(0, count).join(''))
      const restarted = await startControlSandbox(t, { DATA_FILE: dataFile })
      t.same(await served(restarted, 'f'), before, `killed after ${count} of its lines: f is as it was`)
      stopAsKilled(restarted)
    }
  },
)

t.test('a log line written under other data settings is ignored: the namespace starts anew', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile, SEED: '1', SEED_COUNT: '5' })
  t.equal((await first.admin('POST', '/reset?namespace=n', { seed: 9, count: 3 })).status, 200)
  await first.close()
  const second = await startControlSandbox(t, { DATA_FILE: dataFile, SEED: '2', SEED_COUNT: '7' })
  t.equal(((await served(second, 'n')) as unknown[]).length, 7, 'the initial data of the new settings')
})

t.test('a torn end of the log is dropped and said; the lines before it are served', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const first = await withSnapshot(t, dataFile)
  await first.admin('POST', '/reset?namespace=f', { snapshot: 's' })
  const f = await served(first, 'f')
  stopAsKilled(first)
  await appendFile(join(dir, 'db.namespaces.json.journal'), '{"namespace":"g","res')
  const warnings: string[] = []
  const config = await testConfig(t, { DATA_FILE: dataFile, ADMIN_TOKEN })
  const logger = createLogger('silent')
  logger.warn = ((_: unknown, message: string) => void warnings.push(message)) as typeof logger.warn
  const second = await startSandbox(config, logger)
  t.teardown(() => second.close())
  t.same(await served(second, 'f'), f, 'the fork before the torn end is served')
  t.match(
    warnings.join('\n'),
    /dropped the last 21 bytes of .*db\.namespaces\.json\.journal/,
    'the dropped end is said',
  )
})

// The log's own writes failing: a fork refused with a 503 changed nothing, on disk or served; once
// the fault clears, a fork is stored and a restart serves it.
const LOG_FAULTS: Array<{ call: FileCall; target: 'journal' | 'directory'; failure: Failure; nth: number }> = [
  { call: 'open', target: 'journal', failure: 'EIO', nth: 1 },
  { call: 'write', target: 'journal', failure: 'ENOSPC', nth: 1 },
  { call: 'write', target: 'journal', failure: 'torn', nth: 1 },
  { call: 'fsync', target: 'journal', failure: 'EIO', nth: 1 },
  { call: 'syncDirectory', target: 'directory', failure: 'EIO', nth: 1 },
  // The log's second line: its journal is open and started.
  { call: 'write', target: 'journal', failure: 'EIO', nth: 2 },
  { call: 'fsync', target: 'journal', failure: 'EROFS', nth: 2 },
]

for (const { call: fileCall, target, failure, nth } of LOG_FAULTS) {
  t.test(`a fork while ${fileCall} of the log's ${target} fails (${failure}, call ${nth})`, async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const setup = await withSnapshot(t, dataFile)
    await setup.close()
    const fs = new FaultyFileSystem(join(dir, 'db.namespaces.json'))
    const config = await testConfig(t, { DATA_FILE: dataFile, ADMIN_TOKEN })
    const sandbox = await startSandbox(config, createLogger('silent'), SERVER_LIMITS, { fileSystem: fs })
    t.teardown(() => sandbox.close())
    const fork = (name: string) =>
      call(`${sandbox.origin}/__admin/reset?namespace=${name}`, 'POST', { snapshot: 's' }, ADMIN_AUTH)
    // The log's journal is opened once and kept open; a fault on the nth call means the nth fork.
    fs.arm({ call: fileCall, target, failure, nth, persistent: true })
    const answers = [await fork('a'), await fork('b')]
    fs.clear()
    const refused = answers.filter((answer) => answer.status !== 200)
    t.ok(refused.length > 0, 'a fork met the fault')
    for (const answer of refused) t.match(answer, { status: 503, body: { code: 'storage_unavailable' } })
    const acknowledged = ['a', 'b'].filter((_, i) => answers[i]?.status === 200)
    for (const [i, name] of ['a', 'b'].entries())
      t.equal(
        ((await served(sandbox, name)) as unknown[]).length,
        answers[i]?.status === 200 ? 5 : 60,
        `${name} serves what was answered`,
      )
    t.equal((await fork('c')).status, 200, 'once the fault clears, a fork is stored')
    stopAsKilled(sandbox)
    const restarted = await startSandbox(config, createLogger('silent'))
    t.teardown(() => restarted.close())
    for (const name of [...acknowledged, 'c'])
      t.equal(((await served(restarted, name)) as unknown[]).length, 5, `a restart serves the fork ${name}`)
    for (const name of ['a', 'b'].filter((n) => !acknowledged.includes(n)))
      t.equal(await served(restarted, name), 404, `and not the refused fork ${name}`)
  })
}
