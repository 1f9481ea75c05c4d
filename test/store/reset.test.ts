// A reset is one append log line naming data a start can make again (a seed's pets, or the store's own
// initial data), not a rewrite of the data file; and a namespace is written only once it changes,
// as an append log alone. Checked through HTTP and restarts, with a look at the files where the layout
// is the point.
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ADMIN_TOKEN, ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { tempDir, stopAsKilled } from '../support/sandbox.js'

/** The namespaces' files in `dir`. */
const nsFiles = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((name) => name.includes('.ns.'))

async function served(sandbox: ControlSandbox, namespace: string): Promise<unknown> {
  const res = await sandbox.control('GET', `/pets?namespace=${namespace}`)
  return res.status === 200 ? res.body : res.status
}

t.test('a reset appends one append log line; the image is untouched; a restart replays it', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  const image = await readFile(dataFile)
  await first.api('POST', '/pets', { name: 'Before', categoryId: 1 })
  t.equal((await first.control('POST', '/reset', { seed: 5, count: 10 })).status, 200)
  await first.api('POST', '/pets', { name: 'After', categoryId: 2 })
  const appendLog = (await readFile(`${dataFile}.journal`, 'utf8')).trimEnd().split('\n')
  t.same(
    JSON.parse(appendLog.at(-2) as string),
    { reset: { kind: 'seed', seed: 5, count: 10 } },
    'the reset is one line naming its seed',
  )
  t.same(await readFile(dataFile), image, 'the image was not rewritten')
  const pets = await served(first, 'default')
  t.equal((pets as unknown[]).length, 11, 'the seeded pets and the one created after')
  t.equal((await first.control('POST', '/reset')).status, 200, 'a reset to the initial data')
  const initial = await served(first, 'default')
  t.same(JSON.parse((await readFile(`${dataFile}.journal`, 'utf8')).trimEnd().split('\n').at(-1) as string), {
    reset: first.store.source,
  })
  // As a kill leaves them: the first sandbox stops serving, its store is not flushed (a clean stop
  // would fold the append log into an image).
  stopAsKilled(first, dataFile)
  const again = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await served(again, 'default'), initial, 'a restart replays the append log to the same pets')
})

t.test('the same seed gives the same pets after a reset, whether served, replayed or folded', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  await first.control('POST', '/reset?namespace=a', { seed: 9, count: 30 })
  await first.control('POST', '/reset?namespace=b', { seed: 9, count: 30 })
  const a = await served(first, 'a')
  t.same(await served(first, 'b'), a, 'two namespaces reset to one seed hold the same pets')
  stopAsKilled(first, dataFile)
  const replayed = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await served(replayed, 'a'), a, 'a restart replays the reset to them')
  await replayed.close()
  const folded = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await served(folded, 'a'), a, 'and after a clean stop folded the append log into an image, too')
})

t.test('a namespace writes nothing until it changes; then its append log alone, replayed by a restart', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.equal((await first.api('GET', '/pets?limit=100', undefined, ns('reader'))).status, 200)
  t.equal((await first.control('POST', '/reset?namespace=reader')).status, 200, 'a reset changes nothing in it')
  t.equal((await first.control('GET', '/requests?namespace=reader')).status, 200, 'it is live')
  t.same(await nsFiles(dir), [], 'a namespace that was only read and reset has no file')
  await first.api('POST', '/pets', { name: 'Written', categoryId: 3 }, ns('writer'))
  t.same(await nsFiles(dir), ['db.ns.writer.json.journal'], 'its first change starts its append log, with no image')
  await first.control('POST', '/reset?namespace=writer', { seed: 2, count: 3 })
  await first.api('POST', '/pets', { name: 'Kept', categoryId: 3 }, ns('writer'))
  const writer = await served(first, 'writer')

  // As a kill leaves them: not flushed.
  stopAsKilled(first, dataFile)
  const second = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await served(second, 'writer'), writer, 'a restart serves its reset and the create after it')
  t.equal(await served(second, 'reader'), 404, 'a namespace that never changed is not kept: reading it is a 404')
  const { namespaces } = (await second.control('GET', '/namespaces')).body
  t.same(namespaces.map((n: { name: string }) => n.name).sort(), ['default', 'writer'], 'listNamespaces: the live ones')
})

t.test('a namespace append log made from other data settings is not replayed: the namespace starts anew', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile, SEED: '1', SEED_COUNT: '5' })
  await first.api('POST', '/pets', { name: 'OldSettings', categoryId: 1 }, ns('n'))
  await first.close()
  const second = await startControlSandbox(t, { DATA_FILE: dataFile, SEED: '2', SEED_COUNT: '7', ADMIN_TOKEN })
  const pets = (await served(second, 'n')) as Array<{ name: string }>
  t.equal(pets.length, 7, 'the initial data of the new settings')
  const names = pets.map((pet) => pet.name)
  t.notOk(names.includes('OldSettings'), 'without what was made on the old ones')
})
