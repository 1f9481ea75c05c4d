// Data conformance: every record the sandbox can start from is a Pet as the spec defines it, both
// the committed fixtures and many generated pets (test/store/seed.test.ts checks a few per seed).
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { DEFAULT_FIXTURES } from '../../src/paths.js'
import { generateAnimals } from '../../src/store/seed.js'
import { describeErrors, loadSpec } from '../../src/contract/load.js'

const spec = await loadSpec()
const problems = (records: readonly unknown[]): string[] =>
  records.flatMap((record, i) =>
    spec.validatePet(record) ? [] : [describeErrors(spec.validatePet.errors, `pet[${i}]`)],
  )

t.test('every record of fixtures/pets.json validates against the spec Pet schema', async (t) => {
  const pets = JSON.parse(await readFile(DEFAULT_FIXTURES, 'utf8')) as unknown[]
  t.ok(pets.length >= 50, `at least 50 pets (${pets.length})`)
  t.same(problems(pets), [])
})

t.test('every one of 500 generated pets validates against the spec Pet schema, each with its own id', async (t) => {
  const pets = await generateAnimals(spec.schemas['Pet'] ?? {}, 987_654, 500)
  t.same(problems(pets), [])
  t.equal(new Set(pets.map((p) => p.id)).size, 500)
})
