// Persistence: bad data files and fixtures stop the start; a file of the user's own is kept. (An
// acknowledged create across restarts, and a data file that is not JSON: data-file.test.ts.)
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import { AUTH, postPet, startTestSandbox, tempDir, testConfig } from '../support/sandbox.js'

type Pet = { id: number; name: string; categoryId: number; status: string }

const idsOf = (pets: Pet[]): number[] => pets.map((pet) => pet.id)
const createPet = (baseUrl: string, name: string): Promise<Response> => postPet(baseUrl, { name, categoryId: 1 })

t.test('a data file with a bad record stops the start, naming it', async (t) => {
  const config = await testConfig(t)
  const cases = [
    { content: '[]', message: /must hold a JSON object with a "pets" array/ },
    {
      content: '{"pets":[{"id":1,"name":"A","categoryId":1},{"id":2,"name":"B"}]}',
      message: /invalid pet at index 1: pet\.categoryId is required/,
    },
  ]
  for (const c of cases) {
    await writeFile(config.dataFile!, c.content)
    await t.rejects(startSandbox(config, createLogger('silent')), { message: c.message }, c.content)
    t.equal(await readFile(config.dataFile!, 'utf8'), c.content, 'left untouched')
  }
})

t.test("a data file of the user's own (no origin, ids out of order) is kept whatever the settings", async (t) => {
  const config = await testConfig(t, { SEED: '5' })
  const pet = (id: number): Pet => ({ id, name: `Pet ${id}`, categoryId: 1, status: 'available' })
  const ids = [40, 2, 17, 3, 1000, 18]
  await writeFile(config.dataFile!, JSON.stringify({ pets: ids.map(pet) }))
  const sandbox = await startSandbox(config, createLogger('silent'))
  t.teardown(() => sandbox.close())
  const get = async (id: number): Promise<[number, unknown]> => {
    const res = await fetch(`${sandbox.baseUrl}/pets/${id}`, { headers: AUTH })
    return [res.status, res.status === 200 ? await res.json() : undefined]
  }
  for (const id of ids) t.same(await get(id), [200, pet(id)], `pet ${id}`)
  for (const id of [1, 4, 16, 19, 39, 41, 999, 1001]) t.same(await get(id), [404, undefined], `no pet ${id}`)
  const listed = (await (await fetch(`${sandbox.baseUrl}/pets?limit=100`, { headers: AUTH })).json()) as Pet[]
  t.same(idsOf(listed), [2, 3, 17, 18, 40, 1000], 'listed in id order')
  const next = (await (await createPet(sandbox.baseUrl, 'Next')).json()) as Pet
  t.equal(next.id, 1001, 'new ids follow the largest one in the file')
  t.same(await get(1001), [200, next])
})

t.test('the data file follows the data settings it was made from', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const start = async (seed: string) =>
    startSandbox(await testConfig(t, { DATA_FILE: dataFile, SEED: seed, SEED_COUNT: '10' }), createLogger('silent'))
  let sandbox = await start('7')
  const created = (await (await createPet(sandbox.baseUrl, 'Kept')).json()) as Pet
  await sandbox.close()
  sandbox = await start('7')
  t.ok(sandbox.store.get(created.id), 'the same seed and count keep the writes')
  await sandbox.close()
  sandbox = await start('8')
  t.notOk(sandbox.store.get(created.id), 'another seed rebuilds the file from the new data')
  t.equal(sandbox.store.size, 10)
  await sandbox.close()
})

t.test('in-memory mode keeps nothing between runs', async (t) => {
  const first = await startTestSandbox(t, { DATA_FILE: ':memory:' })
  t.equal(first.config.dataFile, undefined, 'DATA_FILE=:memory: selects the in-memory store')
  const res = await createPet(first.baseUrl, 'Ephemeral')
  t.equal(res.status, 201)
  const { id } = (await res.json()) as Pet
  await first.close()

  const second = await startTestSandbox(t, { DATA_FILE: ':memory:' })
  t.notOk(second.store.get(id), 'a new in-memory sandbox starts from the fixtures again')
  const flag = loadConfig(['--in-memory'], {})
  t.equal(flag !== 'help' && flag.dataFile, undefined, '--in-memory does the same')
})

t.test("FIXTURES loads a user's pets, and refuses an invalid file naming it and the record", async (t) => {
  const dir = await tempDir(t)
  const good = join(dir, 'good.json')
  await writeFile(good, JSON.stringify([{ id: 3, name: 'Fixture', categoryId: 2, status: 'pending' }]))
  const sandbox = await startTestSandbox(t, { FIXTURES: good })
  t.same(await (await fetch(`${sandbox.baseUrl}/pets`, { headers: AUTH })).json(), [
    { id: 3, name: 'Fixture', categoryId: 2, status: 'pending' },
  ])

  const cases = [
    { content: '{"not":"an array"}', message: /must hold a JSON array of pets/ },
    {
      content: '[{"id":1,"name":"A","categoryId":1},{"id":2,"name":"B","categoryId":1,"status":"lost"}]',
      message: /record 1 pet\.status must be one of/,
    },
    { content: '[{"id":1,"name":"A","categoryId":1', message: /cannot be read as JSON/ },
  ]
  for (const c of cases) {
    const bad = join(dir, 'bad.json')
    await writeFile(bad, c.content)
    const config = await testConfig(t, { FIXTURES: bad })
    const error: unknown = await startSandbox(config, createLogger('silent')).catch((error: unknown) => error)
    t.match(error, { name: 'FixturesError', message: c.message })
    t.match(error, { message: new RegExp(bad) }, 'the message names the file')
  }
})
