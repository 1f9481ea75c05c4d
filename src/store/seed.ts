// Deterministic seeded data: json-schema-faker walks the spec's Pet schema, faker supplies
// realistic animal names, and both draw from the same seed. Same seed and count, same bytes.
import type { Faker } from '@faker-js/faker'
import { storedPet, type Pet } from './pets.js'

export const DEFAULT_SEED = 42
export const DEFAULT_COUNT = 60
/** How many categories seeded pets are spread over. */
export const SEED_CATEGORIES = 8

export async function generateAnimals(petSchema: Record<string, unknown>, seed: number, count: number): Promise<Pet[]> {
  // Loaded on demand, and the English locale alone: faker's index loads all seventy of its locales
  // (about 130 ms, against 25), and a start that serves fixtures needs none.
  const [{ generate }, { faker: english }] = await Promise.all([
    import('json-schema-faker'),
    import('@faker-js/faker/locale/en'),
  ])
  // A Faker of its own per call, seeded: concurrent resets with other seeds cannot disturb it.
  const faker = new (english.constructor as typeof Faker)({ locale: english.rawDefinitions, seed })
  const newPet = {
    ...newPetPart(petSchema),
    required: ['name', 'categoryId', 'status'],
  } as Record<string, any>
  const schema = {
    type: 'array',
    minItems: count,
    maxItems: count,
    items: {
      ...newPet,
      properties: {
        ...newPet['properties'],
        name: { ...newPet['properties'].name, faker: 'animal.petName' },
        categoryId: { ...newPet['properties'].categoryId, minimum: 1, maximum: SEED_CATEGORIES },
      },
    },
  }
  const generated = (await generate(schema, { seed, extensions: { faker } })) as Array<Omit<Pet, 'id'>>
  return generated.map((pet, index) => storedPet(index + 1, pet))
}

/** The NewPet part of the dereferenced Pet schema (Pet = allOf [NewPet, { id }]). */
function newPetPart(petSchema: Record<string, unknown>): Record<string, unknown> {
  const parts = (petSchema['allOf'] as Array<Record<string, any>> | undefined) ?? [petSchema]
  const part = parts.find((p) => p['properties']?.name)
  if (!part) throw new Error('spec: the Pet schema has no name property to seed')
  return part
}

/** Pets as the fixtures file holds them: two-space JSON and a final newline. */
export function serialisePets(pets: readonly Pet[]): string {
  return `${JSON.stringify(pets, null, 2)}\n`
}
