// Rewrites fixtures/pets.json from the spec's Pet schema: npm run fixtures -- [seed] [count]
import { writeFile } from 'node:fs/promises'
import { DEFAULT_FIXTURES } from '../src/paths.js'
import { DEFAULT_COUNT, DEFAULT_SEED, generateAnimals, serialisePets } from '../src/store/seed.js'
import { loadSpec } from '../src/contract/load.js'

const [seed = DEFAULT_SEED, count = DEFAULT_COUNT] = process.argv.slice(2).map(Number)
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(count))
  throw new Error('usage: npm run fixtures -- [seed] [count]')
const spec = await loadSpec()
const pets = await generateAnimals(spec.schemas['Pet'] ?? {}, seed, count)
await writeFile(DEFAULT_FIXTURES, serialisePets(pets))
console.log(`wrote ${pets.length} pets (seed ${seed}) to ${DEFAULT_FIXTURES}`)
