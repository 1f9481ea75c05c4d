// Named snapshots and the namespaces forked from them, through a real server on a real port: what
// a fork sees and changes, what a restart brings back, and every refusal as the Error contract.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { stopAsKilled, tempDir } from '../support/sandbox.js'

async function pets(sandbox: ControlSandbox, namespace: string): Promise<Array<{ id: number; name: string }>> {
  const res = await sandbox.control('GET', `/pets?namespace=${namespace}`)
  if (res.status !== 200) throw new Error(`export of ${namespace}: ${res.status}`)
  return res.body
}

/** A namespace `setup` with 500 seeded pets and a moved clock, frozen as snapshot `fixture`. */
async function fixture(t: Test, sandbox: ControlSandbox): Promise<void> {
  t.equal((await sandbox.control('POST', '/reset?namespace=setup', { seed: 3, count: 500 })).status, 200)
  await sandbox.control('POST', '/clock?namespace=setup', { now: '2030-01-01T00:00:00.000Z' })
  const created = await sandbox.control('POST', '/snapshots', { name: 'fixture', namespace: 'setup' })
  t.equal(created.status, 201, 'the snapshot is created')
  t.match(created.body, { name: 'fixture', namespace: 'setup', pets: 500, forks: [] })
}

t.test('a write in one fork is invisible in every other fork and in the snapshot', async (t) => {
  const sandbox = await startControlSandbox(t, { DATA_FILE: join(await tempDir(t), 'db.json') })
  await fixture(t, sandbox)
  const frozen = await pets(sandbox, 'setup')
  for (const name of ['a', 'b', 'c']) {
    const reset = await sandbox.control('POST', `/reset?namespace=${name}`, { snapshot: 'fixture' })
    t.same(reset.body, { namespace: name, pets: 500 }, `${name} starts from the snapshot`)
  }
  const created = await sandbox.api('POST', '/pets', { name: 'OnlyInA', categoryId: 2 }, ns('a'))
  t.equal(created.status, 201)
  t.equal(created.body.id, 501, 'ids go on after the snapshot’s')
  t.equal((await sandbox.api('GET', '/pets/501', undefined, ns('a'))).status, 200, 'a sees its pet')
  t.equal((await sandbox.api('GET', '/pets/501', undefined, ns('b'))).status, 404, 'b does not')
  t.equal((await sandbox.api('GET', '/pets/250', undefined, ns('b'))).body.id, 250, 'b sees the snapshot’s pets')
  const page = await sandbox.api('GET', '/pets?limit=100', undefined, ns('a'))
  t.equal(page.body.length, 100, 'a list with a limit reads the frozen pets')
  t.same(await pets(sandbox, 'b'), frozen, 'b holds the snapshot’s pets')
  t.equal((await pets(sandbox, 'a')).length, 501)
  await sandbox.api('POST', '/pets', { name: 'OnlyInSetup', categoryId: 1 }, ns('setup'))
  t.same(await pets(sandbox, 'c'), frozen, 'a write in the source namespace does not reach the forks')
  const fresh = await sandbox.control('POST', '/reset?namespace=d', { snapshot: 'fixture' })
  t.equal(fresh.body.pets, 500, 'nor the snapshot')
  const clock = await sandbox.control('GET', '/clock?namespace=d')
  t.equal(clock.body.real, false, 'a fork starts from the snapshot’s clock')
  t.ok(clock.body.now.startsWith('2030-01-01'), clock.body.now)

  const reset = await sandbox.control('POST', '/reset?namespace=a', { snapshot: 'fixture' })
  t.equal(reset.body.pets, 500, 'a reset of a fork returns it to the snapshot')
  t.same(await pets(sandbox, 'a'), frozen)
  t.equal((await sandbox.api('POST', '/pets', { name: 'Again', categoryId: 2 }, ns('a'))).body.id, 501)
})

t.test('snapshots and forks survive a restart, a fork as it was changed or reset', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  await fixture(t, first)
  await first.control('POST', '/reset?namespace=changed', { snapshot: 'fixture' })
  await first.api('POST', '/pets', { name: 'Kept', categoryId: 4 }, ns('changed'))
  await first.api('POST', '/pets', { name: 'Dropped', categoryId: 4 }, ns('reset'))
  await first.control('POST', '/reset?namespace=reset', { snapshot: 'fixture' })
  await first.control('POST', '/reset', { snapshot: 'fixture' })
  const changed = await pets(first, 'changed')
  const frozen = await pets(first, 'reset')
  t.ok((await readdir(dir)).includes('db.snapshot.fixture.json'), 'the snapshot has its own file')
  // As a kill leaves them: no flush, so the journals are what a restart replays.
  stopAsKilled(first, dataFile)
  const second = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await pets(second, 'changed'), changed, 'a fork’s changes survive')
  t.same(await pets(second, 'reset'), frozen, 'a fork reset to the snapshot comes back as the snapshot')
  t.same(await pets(second, 'default'), frozen, 'the default namespace too')
  const listed = await second.control('GET', '/snapshots')
  t.equal(listed.body.count, 1)
  t.match(listed.body.snapshots[0], { name: 'fixture', pets: 500, clock: /^2030-01-01T00:00/ })
  t.same([...listed.body.snapshots[0].forks].sort(), ['changed', 'default', 'reset'], 'its forks, on disk included')
  // A clean stop folds the journals: a folded fork still holds only its own pets and names its base.
  await second.close()
  const third = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await pets(third, 'changed'), changed, 'and after its journal was folded')
})

t.test('a snapshot in use cannot be deleted; once no namespace starts from it, it can', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const sandbox = await startControlSandbox(t, { DATA_FILE: dataFile })
  await fixture(t, sandbox)
  await sandbox.control('POST', '/reset?namespace=a', { snapshot: 'fixture' })
  await sandbox.control('POST', '/reset?namespace=b', { snapshot: 'fixture' })
  const refused = await sandbox.control('DELETE', '/snapshots/fixture')
  t.equal(refused.status, 409)
  t.match(refused.body, { status: 409, code: 'conflict', message: /in use by namespaces a, b/ })
  t.equal((await sandbox.control('POST', '/reset?namespace=c', { snapshot: 'fixture' })).status, 200, 'still there')
  await sandbox.control('POST', '/reset?namespace=a', { seed: 1, count: 3 })
  await sandbox.control('PUT', '/pets?namespace=b', [])
  t.equal((await sandbox.control('DELETE', '/namespaces/c')).status, 200)
  const deleted = await sandbox.control('DELETE', '/snapshots/fixture')
  t.same(deleted.body, { snapshot: 'fixture', deleted: true }, 'no namespace starts from it any more')
  t.same((await sandbox.control('GET', '/snapshots')).body, { count: 0, snapshots: [] })
  await sandbox.close()
  const again = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same((await again.control('GET', '/snapshots')).body, { count: 0, snapshots: [] }, 'deleted on disk')
})

t.test('refusals answer the Error contract with the right status', async (t) => {
  const sandbox = await startControlSandbox(t)
  const expect = async (method: string, path: string, body: unknown, status: number, code: string) => {
    const res = await sandbox.control(method, path, body)
    t.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`)
    t.match(res.body, { status, code, message: String })
  }
  await expect('POST', '/reset?namespace=x', { snapshot: 'missing' }, 404, 'not_found')
  await expect('DELETE', '/snapshots/missing', undefined, 404, 'not_found')
  await expect('POST', '/snapshots', { name: '../escape' }, 400, 'invalid_body')
  await expect('POST', '/snapshots', { name: 'x', namespace: 'nobody' }, 404, 'not_found')
  await expect('POST', '/reset', { snapshot: 'x', seed: 3 }, 400, 'invalid_body')
  await expect('DELETE', '/snapshots/bad%20name', undefined, 400, 'invalid_parameter')
  t.equal((await sandbox.control('POST', '/snapshots', { name: 'taken' })).status, 201, 'of the default namespace')
  await expect('POST', '/snapshots', { name: 'taken' }, 409, 'conflict')
})

t.test('in memory (no data file), snapshots and forks work the same', async (t) => {
  const sandbox = await startControlSandbox(t, { DATA_FILE: ':memory:' })
  await fixture(t, sandbox)
  await sandbox.control('POST', '/reset?namespace=a', { snapshot: 'fixture' })
  await sandbox.api('POST', '/pets', { name: 'OnlyInA', categoryId: 2 }, ns('a'))
  await sandbox.control('POST', '/reset?namespace=b', { snapshot: 'fixture' })
  t.equal((await pets(sandbox, 'a')).length, 501)
  t.equal((await pets(sandbox, 'b')).length, 500)
})

t.test('a crash after a snapshot is deleted: a journal that reset to it and then elsewhere still starts', async (t) => {
  // Only a journal's last reset makes the data: the snapshot an earlier one named may be gone.
  const dataFile = join(await tempDir(t), 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  await first.api('POST', '/pets', { name: 'Own', categoryId: 1 }, ns('n'))
  t.equal((await first.control('POST', '/snapshots', { name: 'gone', namespace: 'n' })).status, 201)
  t.equal((await first.control('POST', '/reset?namespace=n', { snapshot: 'gone' })).status, 200)
  t.equal((await first.control('POST', '/reset?namespace=n', { seed: 3, count: 20 })).status, 200)
  t.equal((await first.control('DELETE', '/snapshots/gone')).status, 200, 'n no longer starts from it')
  const served = await pets(first, 'n')
  stopAsKilled(first, dataFile)

  const second = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await pets(second, 'n'), served, 'n as the last reset left it')
})
