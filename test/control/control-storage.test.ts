// The control API's writes on a disk that refuses them: a 503 with Retry-After, as a create's,
// and nothing changed; once the disk takes writes again, they go through. A deletion either
// completes (200, and neither a crash nor a restart brings back what it deleted) or is a 503 that
// changed nothing (and a crash or a restart serves all of it), never a 500.
import { cp } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { Compaction } from '../../src/store/compaction.js'
import { FaultyFileSystem, type Fault } from '../store/faulty-file-system.js'
import { ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { tempDir } from '../support/sandbox.js'

/** A fault on every such call from the first on. */
const always = (call: Fault['call'], target: Fault['target'], failure: Fault['failure']): Fault => ({
  call,
  target,
  failure,
  nth: 1,
  persistent: true,
})

/** No fold on a timer: one would write while a test's faults are armed. */
const NO_IDLE_FOLD: Partial<Compaction> = { idleAfterRecords: Number.MAX_SAFE_INTEGER }

// A reset under every fault, and once the fault clears: test/store/faults.test.ts.
t.test('a replace on a full disk: 503, the store as it was, then 200 once it has room', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const fs = new FaultyFileSystem(dataFile)
  const { control } = await startControlSandbox(t, { DATA_FILE: dataFile }, { fileSystem: fs })
  const before = (await control('GET', '/pets')).body
  const replace = () => control('PUT', '/pets', [{ id: 1, name: 'Only', categoryId: 1 }])

  // Every write of a new image fails, as on a full disk.
  fs.arm(always('write', 'temp file', 'ENOSPC'), always('write', 'append log', 'ENOSPC'))
  const refused = await replace()
  t.match(refused, { status: 503, body: { code: 'storage_unavailable', message: /Nothing was changed/ } })
  t.equal(refused.headers.get('retry-after'), '1')
  t.same((await control('GET', '/pets')).body, before, 'the pets are as they were')

  fs.clear()
  t.equal((await replace()).status, 200, 'with room again, the replace goes through')
  t.equal((await control('GET', '/pets')).body.length, 1)
})

/**
 * What a crash leaves (a new sandbox on a copy of the data directory as it is now), then what a
 * clean restart of `sandbox` by `start` serves: each with its name.
 */
async function* reopened(t: Test, dir: string, sandbox: ControlSandbox, start: () => Promise<ControlSandbox>) {
  const copy = await tempDir(t)
  await cp(dir, copy, { recursive: true })
  yield ['a crash', await startControlSandbox(t, { DATA_FILE: join(copy, 'db.json') })] as const
  await sandbox.close()
  yield ['a restart', await start()] as const
}

async function names(sandbox: ControlSandbox, namespace: string): Promise<string[]> {
  const listed = await sandbox.api('GET', '/pets?limit=100', undefined, ns(namespace))
  return (listed.body as Array<{ name: string }>).map((pet) => pet.name)
}

const UNLINKS_FAIL: Fault[] = [always('remove', 'data file', 'EIO'), always('remove', 'append log', 'EIO')]

// A namespace with an image and an append log after it (a clean stop folds the append log), as
// long-lived namespaces are on disk; the faults aim at its files. `unused`: not used since that
// stop, so the deletion finds it on disk alone (and its first write, the reset that commits the
// deletion, starts a new append log, removing any stale one first).
const NAMESPACE_FAULTS: Array<{ what: string; faults: Fault[]; answer: 200 | 503; unused?: true }> = [
  { what: 'the removal of its files fails (EIO)', faults: UNLINKS_FAIL, answer: 200 },
  {
    what: 'the removal of its files fails (EIO), not used since a restart',
    faults: UNLINKS_FAIL,
    answer: 503,
    unused: true,
  },
  { what: 'the directory fsync fails (EIO)', faults: [always('syncDirectory', 'directory', 'EIO')], answer: 200 },
  {
    what: 'the disk takes no write (EROFS)',
    faults: (['open', 'write', 'remove', 'syncDirectory'] as const).flatMap((call) =>
      (['append log', 'data file', 'temp file', 'directory'] as const).map((target) => always(call, target, 'EROFS')),
    ),
    answer: 503,
  },
]

for (const { what, faults, answer, unused = false } of NAMESPACE_FAULTS) {
  t.test(`a namespace deleted while ${what}: ${answer}, and a crash or a restart agrees`, async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const fs = new FaultyFileSystem(join(dir, 'db.ns.doomed.json'))
    const start = (): Promise<ControlSandbox> =>
      startControlSandbox(t, { DATA_FILE: dataFile }, { fileSystem: fs, compaction: NO_IDLE_FOLD })
    const doomedNs = ns('doomed')
    const first = await start()
    for (const name of ['Doomed 1', 'Doomed 2'])
      t.equal((await first.api('POST', '/pets', { name, categoryId: 1 }, doomedNs)).status, 201)
    await first.close()
    const sandbox = await start()
    if (!unused)
      t.equal((await sandbox.api('POST', '/pets', { name: 'Doomed 3', categoryId: 1 }, doomedNs)).status, 201)
    const doomed = ['Doomed 1', 'Doomed 2', ...(unused ? [] : ['Doomed 3'])]

    fs.arm(...faults)
    const deleted = await sandbox.control('DELETE', '/namespaces/doomed')
    fs.clear()
    t.equal(deleted.status, answer, JSON.stringify(deleted.body))
    if (deleted.status === 503) t.match(deleted.body, { status: 503, code: 'storage_unavailable' })
    const kept = deleted.status === 503 ? doomed : []
    const has = (served: string[]): string[] => served.filter((name) => name.startsWith('Doomed'))
    t.same(has(await names(sandbox, 'doomed')), kept, deleted.status === 503 ? 'still whole' : 'gone')
    t.equal((await sandbox.api('POST', '/pets', { name: 'After', categoryId: 1 }, doomedNs)).status, 201)

    for await (const [how, again] of reopened(t, dir, sandbox, start)) {
      const served = await names(again, 'doomed')
      t.same(has(served), kept, `after ${how}, the deleted pets ${kept.length ? 'are all there' : 'do not come back'}`)
      t.ok(served.includes('After'), `after ${how}, the create acknowledged after the deletion is there`)
    }
  })
}

t.test(
  'a namespace that never wrote an image is deleted by one unlink and one directory fsync; a crash or a restart agrees',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const fs = new FaultyFileSystem(join(dir, 'db.ns.brief.json'))
    const start = (): Promise<ControlSandbox> =>
      startControlSandbox(t, { DATA_FILE: dataFile }, { fileSystem: fs, compaction: NO_IDLE_FOLD })
    const sandbox = await start()
    t.equal((await sandbox.api('POST', '/pets', { name: 'Brief', categoryId: 1 }, ns('brief'))).status, 201)
    fs.log.length = 0
    t.equal((await sandbox.control('DELETE', '/namespaces/brief')).status, 200)
    const removals = fs.log.filter((call) => /^(remove|rename|syncDirectory) /.test(call))
    t.same(removals, ['remove append log', 'syncDirectory directory'], 'no unlink of an image that was never written')
    for await (const [how, again] of reopened(t, dir, sandbox, start))
      t.notOk((await names(again, 'brief')).includes('Brief'), `after ${how}, the deleted pet does not come back`)
  },
)

t.test(
  'an eviction the disk refuses: the server goes on serving, and what comes back is what a crash or a restart serves',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const fs = new FaultyFileSystem(join(dir, 'db.ns.evicted.json'))
    const start = (): Promise<ControlSandbox> =>
      startControlSandbox(t, { DATA_FILE: dataFile, MAX_NAMESPACES: '3' }, { fileSystem: fs, compaction: NO_IDLE_FOLD })
    const sandbox = await start()
    // Files of its own, holding nothing a test still needs (reset to the initial data): evictable.
    t.equal((await sandbox.api('POST', '/pets', { name: 'Held', categoryId: 1 }, ns('evicted'))).status, 201)
    t.equal((await sandbox.control('POST', '/reset?namespace=evicted')).status, 200)

    // Every unlink of its files fails, as on the disk the report came from.
    fs.arm(...UNLINKS_FAIL)
    // With the default namespace, three are kept: two new names evict the oldest.
    for (const name of ['second', 'third', 'fourth'])
      t.equal((await sandbox.api('GET', '/pets?limit=1', undefined, ns(name))).status, 200, `a request in ${name}`)
    const evicted = !(await sandbox.control('GET', '/namespaces')).body.namespaces.some(
      (n: { name: string }) => n.name === 'evicted',
    )
    t.ok(evicted, 'the oldest namespace was evicted')
    // Its next use waits for the eviction to settle.
    const served = await names(sandbox, 'evicted')
    t.ok(fs.failedSinceArmed('remove') > 0, 'the removal of its files failed')
    fs.clear()
    t.equal((await sandbox.api('GET', '/pets?limit=1')).status, 200, 'the server is serving')
    t.notOk(served.includes('Held'), 'it comes back from its initial data')
    t.equal((await sandbox.api('POST', '/pets', { name: 'Back', categoryId: 1 }, ns('evicted'))).status, 201)

    for await (const [how, again] of reopened(t, dir, sandbox, start))
      t.same(await names(again, 'evicted'), [...served, 'Back'], `${how} serves the same`)
  },
)

const SNAPSHOT_FAULTS: Array<{ what: string; fault: Fault; answer: 200 | 503 }> = [
  { what: 'the unlink of its file fails (EIO)', fault: always('remove', 'data file', 'EIO'), answer: 503 },
  {
    what: 'the directory fsync after the unlink fails (EIO)',
    fault: always('syncDirectory', 'directory', 'EIO'),
    answer: 200,
  },
]

for (const { what, fault, answer } of SNAPSHOT_FAULTS) {
  t.test(`a snapshot deleted while ${what}: ${answer}, and a crash or a restart agrees`, async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    // The faults aim at the snapshot's own file (and the directory).
    const fs = new FaultyFileSystem(join(dir, 'db.snapshot.frozen.json'))
    const start = (): Promise<ControlSandbox> =>
      startControlSandbox(t, { DATA_FILE: dataFile }, { fileSystem: fs, compaction: NO_IDLE_FOLD })
    const sandbox = await start()
    await sandbox.control('POST', '/reset?namespace=source', { seed: 4, count: 5 })
    t.equal((await sandbox.control('POST', '/snapshots', { name: 'frozen', namespace: 'source' })).status, 201)
    const frozen = await names(sandbox, 'source')

    fs.arm(fault)
    const deleted = await sandbox.control('DELETE', '/snapshots/frozen')
    fs.clear()
    t.equal(deleted.status, answer, JSON.stringify(deleted.body))
    const listed = async (on: ControlSandbox): Promise<string[]> =>
      ((await on.control('GET', '/snapshots')).body as { snapshots: Array<{ name: string }> }).snapshots.map(
        (snapshot) => snapshot.name,
      )
    if (deleted.status === 200) {
      t.same(await listed(sandbox), [], 'gone')
      t.equal((await sandbox.control('POST', '/reset?namespace=fork', { snapshot: 'frozen' })).status, 404)
      for await (const [how, again] of reopened(t, dir, sandbox, start))
        t.same(await listed(again), [], `gone after ${how}`)
      return
    }
    t.match(deleted.body, { status: 503, code: 'storage_unavailable' })
    t.same(await listed(sandbox), ['frozen'], 'still listed')
    // Still usable: a fork of it, and a create in the fork.
    t.equal((await sandbox.control('POST', '/reset?namespace=fork', { snapshot: 'frozen' })).status, 200)
    t.equal((await sandbox.api('POST', '/pets', { name: 'Forked', categoryId: 1 }, ns('fork'))).status, 201)
    for await (const [how, again] of reopened(t, dir, sandbox, start)) {
      t.same(await listed(again), ['frozen'], `listed after ${how}`)
      t.same(await names(again, 'fork'), [...frozen, 'Forked'], `after ${how}, the fork serves it and its create`)
    }
  })
}
