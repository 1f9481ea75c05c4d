// Data conformance: every record the sandbox can start from is a Pet as the spec defines it, both
// the committed fixtures and data generated from several seeds.
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { DEFAULT_FIXTURES } from '../../src/paths.js'
import { generateAnimals } from '../../src/store/seed.js'
import { describeErrors, loadSpec } from '../../src/contract/load.js'

const SEEDS = [1, 987_654]
const COUNT = 200

t.test('every record of fixtures/pets.json validates against the spec Pet schema', async (t) => {
  const { validatePet } = await loadSpec()
  const pets = JSON.parse(await readFile(DEFAULT_FIXTURES, 'utf8')) as unknown[]
  t.ok(pets.length >= 50, `at least 50 pets (${pets.length})`)
  t.same(invalidRecords(pets, validatePet), [])
})

for (const seed of SEEDS) {
  t.test(`every pet generated from seed ${seed} validates against the spec Pet schema`, async (t) => {
    const spec = await loadSpec()
    const pets = await generateAnimals(spec.schemas['Pet'] ?? {}, seed, COUNT)
    t.equal(pets.length, COUNT)
    t.same(invalidRecords(pets, spec.validatePet), [])
    t.equal(new Set(pets.map((p) => p.id)).size, COUNT, 'ids are unique')
  })
}

function invalidRecords(
  records: readonly unknown[],
  validate: Awaited<ReturnType<typeof loadSpec>>['validatePet'],
): Array<{ index: number; problem: string }> {
  return records.flatMap((record, index) =>
    validate(record) ? [] : [{ index, problem: describeErrors(validate.errors, `pet[${index}]`) }],
  )
}
