// The store's data file layout: a snapshot plus an append-only journal of creates. Restarts, kill -9
// under load, a torn last line, corrupt and stale journals, compaction.
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createLogger } from '../../src/logger.js'
import { JournaledJsonFile } from '../../src/store/data-file.js'
import { startSandbox } from '../../src/sandbox.js'
import { AUTH, postPet, killDuringWriteLoad, readStoredPets, tempDir, testConfig, waitFor } from '../support/sandbox.js'

type Pet = { id: number; name: string; categoryId: number; status: string }

const pet = (id: number, name = `Pet ${id}`): Pet => ({ id, name, categoryId: 1, status: 'available' })
const line = (value: unknown): string => `${JSON.stringify(value)}\n`

const create = (baseUrl: string, name: string, headers?: Record<string, string>): Promise<Response> =>
  postPet(baseUrl, { name, categoryId: 1 }, headers)

/** A data file as the sandbox writes it: a snapshot naming its journal, and the journal. */
async function writeLayout(dataFile: string, snapshot: Pet[], journal: string): Promise<void> {
  await writeFile(dataFile, JSON.stringify({ pets: snapshot, journal: 'j1' }))
  await writeFile(`${dataFile}.journal`, journal)
}

t.test('a create appends one journal line; the snapshot is not rewritten; a restart reads both', async (t) => {
  const config = await testConfig(t)
  const first = await startSandbox(config, createLogger('silent'))
  const snapshot = await readFile(config.dataFile!, 'utf8')
  const created: Pet[] = []
  for (const name of ['One', 'Two', 'Three']) created.push((await (await create(first.baseUrl, name)).json()) as Pet)
  t.equal(await readFile(config.dataFile!, 'utf8'), snapshot, 'the snapshot is untouched by creates')
  const journal = (await readFile(`${config.dataFile}.journal`, 'utf8')).split('\n')
  t.same(
    journal.slice(1, -1).map((l) => JSON.parse(l)),
    created,
    'each acknowledged pet is one journal line',
  )

  // A restart without a clean stop (the process would have been killed): snapshot + journal.
  const second = await startSandbox(config, createLogger('silent'))
  t.same(second.store.all().slice(-3), created, 'the restarted store holds the journaled pets')
  await first.server.close()
  await second.close()
  const compacted = JSON.parse(await readFile(config.dataFile!, 'utf8')) as { pets: Pet[] }
  t.same(compacted.pets.slice(-3), created, 'a clean stop folds the journal into the snapshot')
  await t.rejects(
    readFile(`${config.dataFile}.journal`, 'utf8'),
    { code: 'ENOENT' },
    'and removes the journal it folded in',
  )
})

t.test('kill -9 during a write load: a restart serves every acknowledged pet', async (t) => {
  const { dataFile, acknowledged } = await killDuringWriteLoad(t, 30, 50)
  t.ok(acknowledged.length > 50, `${acknowledged.length} creates were acknowledged before the kill`)

  const config = await testConfig(t, { DATA_FILE: dataFile })
  const again = await startSandbox(config, createLogger('silent'))
  t.teardown(() => again.close())
  const missing = acknowledged.filter((p) => JSON.stringify(again.store.get(p.id)) !== JSON.stringify(p))
  t.same(missing, [], 'every acknowledged pet is back, exactly as acknowledged')
  const ids = again.store.all().map((p) => p.id)
  t.equal(new Set(ids).size, ids.length, 'and no id is stored twice')
})

t.test('a torn last journal line (never acknowledged) is dropped; the next write starts a clean journal', async (t) => {
  // Two shapes of a torn append: cut mid-record, and a whole record whose newline never made it.
  for (const torn of ['{"id":4,"name":"Tor', JSON.stringify(pet(4, 'No newline'))]) {
    const config = await testConfig(t)
    await writeLayout(config.dataFile!, [pet(1)], line({ snapshot: 'j1' }) + line(pet(2)) + line(pet(3)) + torn)
    const sandbox = await startSandbox(config, createLogger('silent'))
    t.same(
      sandbox.store.all().map((p) => p.id),
      [1, 2, 3],
      `the torn line is dropped: ${torn}`,
    )
    const next = (await (await create(sandbox.baseUrl, 'After')).json()) as Pet
    t.equal(next.id, 4, 'the torn record never existed: its id is given out again')
    t.same(
      (await readStoredPets(config.dataFile!)).map((p) => p.id),
      [1, 2, 3, 4],
      'on disk: the good records and the new one',
    )
    t.notMatch(
      await readFile(`${config.dataFile}.journal`, 'utf8').catch(() => ''),
      /Tor|No newline/,
      'the torn bytes are gone',
    )
    await sandbox.close()
  }
})

t.test(
  'a corrupt journal line that is not the torn end stops the start, naming the journal; nothing is touched',
  async (t) => {
    const config = await testConfig(t)
    const snapshot = JSON.stringify({ pets: [pet(1)], journal: 'j1' })
    const journal = line({ snapshot: 'j1' }) + '{"id":2,"name"\n' + line(pet(3))
    await writeFile(config.dataFile!, snapshot)
    await writeFile(`${config.dataFile}.journal`, journal)
    await t.rejects(startSandbox(config, createLogger('silent')), {
      name: 'DataFileError',
      message: new RegExp(`Data file ${config.dataFile}\\.journal has an invalid line 2`),
    })
    t.equal(await readFile(config.dataFile!, 'utf8'), snapshot, 'the snapshot is left untouched')
    t.equal(await readFile(`${config.dataFile}.journal`, 'utf8'), journal, 'the journal is left untouched')

    await writeFile(`${config.dataFile}.journal`, line({ snapshot: 'j1' }) + line({ id: 2, name: 'No category' }))
    await t.rejects(
      startSandbox(config, createLogger('silent')),
      { message: /invalid pet at index 1: pet\.categoryId is required/ },
      'a journaled record is checked like any other',
    )
  },
)

t.test('a journal left from an older snapshot is ignored: that snapshot already holds it', async (t) => {
  const config = await testConfig(t)
  await writeFile(config.dataFile!, JSON.stringify({ pets: [pet(1), pet(2)], journal: 'new' }))
  await writeFile(`${config.dataFile}.journal`, line({ snapshot: 'old' }) + line(pet(2)) + line(pet(99)))
  const sandbox = await startSandbox(config, createLogger('silent'))
  t.teardown(() => sandbox.close())
  t.same(
    sandbox.store.all().map((p) => p.id),
    [1, 2],
  )
  const res = await fetch(`${sandbox.baseUrl}/pets/99`, { headers: AUTH })
  t.equal(res.status, 404, 'a record of the stale journal does not come back')
  await res.body?.cancel()
})

t.test('the journal is folded into a new snapshot once it holds enough records', async (t) => {
  const dir = await tempDir(t)
  const file = join(dir, 'db.json')
  const adapter = new JournaledJsonFile<{ pets: Pet[] }, Pet>(file, 'pets', 3)
  const data = { pets: [pet(1)] }
  await adapter.write(data)
  const journalLines = async (): Promise<number> =>
    (await readFile(`${file}.journal`, 'utf8').catch(() => '\n')).split('\n').length - 2
  for (const id of [2, 3]) {
    data.pets.push(pet(id))
    await adapter.append(data, [pet(id)])
  }
  t.equal(await journalLines(), 2, 'below the threshold, records are appended')
  data.pets.push(pet(4))
  await adapter.append(data, [pet(4)])
  t.equal(await journalLines(), 0, 'at the threshold, the journal starts over')
  t.same(
    (await readStoredPets(file)).map((p) => p.id),
    [1, 2, 3, 4],
    'with every record in the snapshot',
  )
  t.same(
    (await new JournaledJsonFile<{ pets: Pet[] }, Pet>(file, 'pets').read())?.pets.map((p) => p.id),
    [1, 2, 3, 4],
    'and read back the same',
  )
})

t.test('a journal is folded into the snapshot once the file is idle, and not while writes keep coming', async (t) => {
  const dir = await tempDir(t)
  const file = join(dir, 'db.json')
  // Writes 50 ms apart must stay well inside the idle time even on a busy machine, where a timer
  // or a process can be late by a good part of 100 ms.
  const idleMs = 1_000
  const adapter = new JournaledJsonFile<{ pets: Pet[] }, Pet>(file, 'pets', 1_000, { afterRecords: 2, idleMs })
  const data = { pets: [pet(1)] }
  await adapter.write(data)
  const journalLines = async (): Promise<number> =>
    (await readFile(`${file}.journal`, 'utf8').catch(() => '\n')).split('\n').length - 2
  data.pets.push(pet(2))
  await adapter.append(data, [pet(2)])
  // Nothing to wait for: a fold that must not happen. Past the idle time, it would have.
  await sleep(idleMs * 1.5)
  t.equal(await journalLines(), 1, 'below the idle threshold, the journal stays')
  // Writes closer together than the idle time: no fold in between.
  for (const id of [3, 4, 5, 6]) {
    data.pets.push(pet(id))
    await adapter.append(data, [pet(id)])
    await sleep(50)
  }
  t.equal(await journalLines(), 5, 'while writes keep coming, every record is appended')
  // The fold starts after the idle time and takes a snapshot write (fsync, rename): wait for it, bounded.
  await waitFor(async () => (await journalLines()) === 0, { what: 'the idle journal to be folded into the snapshot' })
  t.equal(await journalLines(), 0, 'once the file is idle, the journal starts over')
  t.same(
    (await readStoredPets(file)).map((p) => p.id),
    [1, 2, 3, 4, 5, 6],
    'with every record in the snapshot',
  )
  t.same(
    (await new JournaledJsonFile<{ pets: Pet[] }, Pet>(file, 'pets').read())?.pets.map((p) => p.id),
    [1, 2, 3, 4, 5, 6],
    'and read back the same',
  )
})

t.test('requests that arrive as a write hands over to the next are all written, once and in order', async (t) => {
  const dir = await tempDir(t)
  const file = join(dir, 'db.json')
  const adapter = new JournaledJsonFile<{ pets: Pet[] }, Pet>(file, 'pets')
  const data = { pets: [] as Pet[] }
  await adapter.write(data)
  let id = 0
  const add = (): Promise<void> => {
    const record = pet(++id)
    data.pets.push(record)
    return adapter.append(data, [record])
  }
  const failures: unknown[] = []
  for (let round = 0; round < 30; round++) {
    await add()
    // Land after the finished write has handed over, before the flush it scheduled runs.
    await new Promise((resolve) => setImmediate(resolve))
    const results = await Promise.allSettled([add(), round % 3 === 0 ? adapter.write(data) : add(), add()])
    for (const result of results) if (result.status === 'rejected') failures.push(result.reason)
  }
  t.same(failures, [], 'no write failed')
  t.same(
    (await readStoredPets(file)).map((p) => p.id),
    data.pets.map((p) => p.id),
    'every record is on disk once, in order',
  )
})

t.test('stopping a store that took no create leaves the data file as it was', async (t) => {
  const config = await testConfig(t)
  const first = await startSandbox(config, createLogger('silent'))
  await first.close()
  const before = await readFile(config.dataFile!, 'utf8')
  const second = await startSandbox(config, createLogger('silent'))
  const res = await fetch(`${second.baseUrl}/pets`, { headers: AUTH })
  await res.body?.cancel()
  await second.close()
  t.equal(await readFile(config.dataFile!, 'utf8'), before, 'no new snapshot was written')
})

t.test('a journal left beside a deleted data file is not taken for the new one', async (t) => {
  const config = await testConfig(t, { SEED: '3', SEED_COUNT: '5' })
  const first = await startSandbox(config, createLogger('silent'))
  const extra = (await (await create(first.baseUrl, 'Left behind')).json()) as Pet
  await first.server.close()
  // The user removes the data file to start over; the journal stays.
  const journal = await readFile(`${config.dataFile}.journal`, 'utf8')
  await rm(config.dataFile!)
  await writeFile(`${config.dataFile}.journal`, journal)
  const second = await startSandbox(config, createLogger('silent'))
  t.teardown(() => second.close())
  t.equal(second.store.get(extra.id), undefined, 'the pet of the old journal is not back')
  const restarted = await startSandbox(config, createLogger('silent'))
  t.teardown(() => restarted.close())
  t.equal(restarted.store.get(extra.id), undefined, 'nor after another restart')
  t.equal(restarted.store.size, 5)
})
