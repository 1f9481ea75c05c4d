// The initial data, and a seed's pets, are made once and frozen: a namespace made from them, and any
// store reset to them, holds a reference and only the pets it adds itself, so that a rich fixtures
// file or a large seed costs a new namespace, or the next reset to the same seed, nothing. Through
// a real server on a real port, and real restarts.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { KEPT_SEEDS } from '../../src/store/initial-data.js'
import { ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { tempDir } from '../support/sandbox.js'

async function storeOf(sandbox: ControlSandbox, name: string) {
  const namespace = await sandbox.namespaces.existing(name)
  if (namespace === undefined) throw new Error(`no namespace ${name}`)
  return namespace.store()
}

async function richFixtures(dir: string, count: number): Promise<string> {
  const file = join(dir, 'rich.json')
  const pets = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: 1 + (i % 8),
    status: 'pending',
  }))
  await writeFile(file, JSON.stringify(pets))
  return file
}

t.test('every namespace starts from the same pets: none generates or copies them', async (t) => {
  const sandbox = await startControlSandbox(t, { SEED: '7', SEED_COUNT: '500' })
  for (const name of ['a', 'b']) t.equal((await sandbox.api('GET', '/pets/500', undefined, ns(name))).status, 200)
  const [a, b] = [await storeOf(sandbox, 'a'), await storeOf(sandbox, 'b')]
  t.same(a.base, sandbox.store.source, 'a starts from the initial data, by reference')
  t.same(b.base, a.base)
  t.equal(a.get(250), b.get(250), 'the same pet, not one generated again for each namespace')
  t.ok(Object.isFrozen(a.get(250)), 'and nobody can change it')

  const created = await sandbox.api('POST', '/pets', { name: 'OnlyInA', categoryId: 2 }, ns('a'))
  t.equal(created.body.id, 501, 'ids go on after the initial data')
  t.equal(a.size, 501)
  t.equal(b.size, 500, 'b does not hold it (the isolation through the API: namespaces.test.ts)')

  t.same((await sandbox.control('POST', '/reset')).body, { namespace: 'default', pets: 500 })
  t.same(sandbox.store.base, sandbox.store.source, 'a reset of the default namespace shares them too')
  t.equal(sandbox.store.get(250), a.get(250))
})

t.test(
  'on disk a shared start (initial data or seed) is one line; a restart serves it with what was added since',
  async (t) => {
    const dir = await tempDir(t)
    const env = { DATA_FILE: join(dir, 'db.json'), FIXTURES: await richFixtures(dir, 2_000) }
    const first = await startControlSandbox(t, env)
    await first.api('POST', '/pets', { name: 'InA', categoryId: 1 }, ns('a'))
    t.equal((await first.control('POST', '/reset?namespace=b')).status, 200)
    await first.api('POST', '/pets', { name: 'InB', categoryId: 1 }, ns('b'))
    t.equal((await first.control('POST', '/reset')).status, 200)
    await first.api('POST', '/pets', { name: 'InDefault', categoryId: 1 })
    t.equal((await first.control('POST', '/reset?namespace=s', { seed: 4, count: 50 })).status, 200)
    await first.api('POST', '/pets', { name: 'InS', categoryId: 2 }, ns('s'))
    const seeded = (await first.control('GET', '/pets?namespace=s')).body
    await first.close()

    // A clean stop folds each append log: the namespace's file names the frozen data and holds its own pets.
    const folded = JSON.parse(await readFile(join(dir, 'db.ns.a.json'), 'utf8'))
    t.match(folded, { source: { kind: 'fixtures' }, pets: [{ id: 2001, name: 'InA' }] })
    t.same(folded.base, folded.source, 'a names the initial data as its base')
    t.equal(folded.pets.length, 1, 'and does not hold the 2,000 pets')
    const defaultFile = JSON.parse(await readFile(join(dir, 'db.json'), 'utf8'))
    t.same(defaultFile.base, defaultFile.source, 'the default namespace after a reset too')
    t.match(defaultFile.pets, [{ name: 'InDefault' }])
    t.equal(defaultFile.pets.length, 1, 'and holds its own pet alone')
    const seededFile = JSON.parse(await readFile(join(dir, 'db.ns.s.json'), 'utf8'))
    t.same(seededFile.base, { kind: 'seed', seed: 4, count: 50 }, 'a namespace reset to a seed names the seed')
    t.match(seededFile.pets, [{ name: 'InS' }])
    t.equal(seededFile.pets.length, 1)

    const second = await startControlSandbox(t, env)
    for (const [name, added] of [
      ['a', 'InA'],
      ['b', 'InB'],
      ['default', 'InDefault'],
    ] as const) {
      const pets = (await second.control('GET', `/pets?namespace=${name}`)).body as Array<{ id: number; name: string }>
      t.equal(pets.length, 2_001, `${name}: the initial data and its own pet`)
      t.same(pets.at(-1), { id: 2001, name: added, categoryId: 1, status: 'available' })
      t.same(pets[1_999], { id: 2000, name: 'Pet 2000', categoryId: 8, status: 'pending' })
    }
    t.same((await second.control('GET', '/pets?namespace=s')).body, seeded, "a seed's pets are made again, the same")
  },
)

t.test('a data file of the user’s own (no origin) is given the pets whole on a reset', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  await writeFile(dataFile, JSON.stringify({ pets: [{ id: 1, name: 'Mine', categoryId: 1, status: 'sold' }] }))
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same((await first.control('POST', '/reset')).body, { namespace: 'default', pets: 60 })
  await first.close()
  const written = JSON.parse(await readFile(dataFile, 'utf8'))
  t.equal(written.base, undefined, 'the file stands on its own')
  t.equal(written.pets.length, 60)
  // Kept whatever the data settings later: test/store/store.test.ts.
})

t.test('a seed’s pets are made once for the resets to it, and made again the same after it is dropped', async (t) => {
  const sandbox = await startControlSandbox(t)
  const seeded = { seed: 9, count: 300 }
  for (const name of ['a', 'b'])
    t.same((await sandbox.control('POST', `/reset?namespace=${name}`, seeded)).body.pets, 300)
  const [a, b] = [await storeOf(sandbox, 'a'), await storeOf(sandbox, 'b')]
  t.same(a.base, { kind: 'seed', seed: 9, count: 300 })
  t.equal(a.get(150), b.get(150), 'the second reset to the seed reused the pets the first made')
  const made = { ...a.get(150) }

  // Enough other seeds that the first is no longer kept.
  for (let seed = 100; seed < 100 + KEPT_SEEDS; seed++)
    t.equal((await sandbox.control('POST', '/reset?namespace=c', { seed, count: 5 })).status, 200)
  t.equal((await sandbox.control('POST', '/reset?namespace=d', seeded)).status, 200)
  const d = await storeOf(sandbox, 'd')
  t.not(d.get(150), a.get(150), 'made again once dropped')
  t.same(d.get(150), made, 'and the same seed gives the same pets')
  t.equal(a.get(150), b.get(150), 'stores that started from the dropped ones keep them')
})
