// Seeded data is deterministic: same seed and count, same bytes; the fixtures are reproducible.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { DEFAULT_FIXTURES } from '../../src/paths.js'
import { DEFAULT_COUNT, DEFAULT_SEED, generateAnimals, serialisePets } from '../../src/store/seed.js'
import { loadSpec } from '../../src/spec/load.js'
import { AUTH, startTestSandbox } from '../support/sandbox.js'

const spec = await loadSpec()
const petSchema = spec.schemas['Pet'] ?? {}

t.test('the same seed and count give the same pets, another seed other pets', async (t) => {
  const a = await generateAnimals(petSchema, 7, 30)
  const b = await generateAnimals(petSchema, 7, 30)
  const c = await generateAnimals(petSchema, 8, 30)
  t.equal(serialisePets(a), serialisePets(b))
  t.not(serialisePets(a), serialisePets(c))
  t.equal(a.length, 30)
  t.ok(spec.validatePets(a), 'generated pets match the spec')
  t.same(
    a.map((p) => p.id),
    Array.from({ length: 30 }, (_, i) => i + 1),
    'ids run from 1',
  )
})

t.test('fixtures/pets.json is exactly what `npm run fixtures` generates', async (t) => {
  const generated = serialisePets(await generateAnimals(petSchema, DEFAULT_SEED, DEFAULT_COUNT))
  t.equal(await readFile(DEFAULT_FIXTURES, 'utf8'), generated)
})

t.test('the default data: at least 50 pets, every status, several categories, realistic names', async (t) => {
  const pets = JSON.parse(await readFile(DEFAULT_FIXTURES, 'utf8')) as Array<{
    name: string
    categoryId: number
    status: string
  }>
  t.ok(pets.length >= 50)
  t.same(new Set(pets.map((p) => p.status)), new Set(['available', 'pending', 'sold']))
  t.ok(new Set(pets.map((p) => p.categoryId)).size >= 3)
  t.ok(
    pets.every((p) => /^[A-Z][a-z]+/.test(p.name)),
    'names look like pet names',
  )
})

t.test('two sandboxes started with the same SEED serve byte-identical data', async (t) => {
  const read = async (seed: string): Promise<{ api: string; file: string }> => {
    const sandbox = await startTestSandbox(t, { SEED: seed, SEED_COUNT: '100' })
    const api = await (await fetch(`${sandbox.baseUrl}/pets?limit=100`, { headers: AUTH })).text()
    const file = await readFile(sandbox.config.dataFile!, 'utf8')
    await sandbox.close()
    return { api, file }
  }
  const first = await read('1234')
  const second = await read('1234')
  const other = await read('4321')
  t.equal(first.api, second.api, 'the API answers the same bytes')
  t.equal(first.file, second.file, 'the data files are byte-identical')
  t.not(first.api, other.api, 'another seed gives other data')
  t.equal((JSON.parse(first.api) as unknown[]).length, 100)
})
