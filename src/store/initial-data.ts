// The data a fresh store starts from: the committed fixtures, a user's fixtures file, or pets
// generated from a seed.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { DEFAULT_FIXTURES } from '../paths.js'
import { describeErrors } from '../contract/load.js'
import { type ApiSpec } from '../contract/types.js'
import { parseSeedOrigin, seedOrigin } from './origin.js'
import { generateAnimals } from './seed.js'
import { sharePets, type Pet, type SharedPets } from './pets.js'

/** Where the initial data comes from when the store has none of its own. */
export type DataSource =
  | { readonly kind: 'fixtures'; readonly file: string | undefined }
  | { readonly kind: 'seed'; readonly seed: number; readonly count: number }

export class FixturesError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FixturesError'
  }
}

/** How many seeds' pets are kept once a reset has made them, for the next reset to the same seed. */
export const KEPT_SEEDS = 8

export interface InitialData {
  /** Recorded in the data file, so a restart with other data settings rebuilds it. */
  readonly origin: string
  /** For the start banner. */
  readonly description: string
  /**
   * The pets of an origin this start can make (its own data's, any seed's), made once and shared
   * by every store that starts from them: each holds a reference and only the pets it adds itself.
   * The initial data's are kept for good, the last KEPT_SEEDS seeds' for the next reset to them.
   * Undefined for an origin this start cannot make.
   */
  readonly sharedPets: (origin: string) => Promise<SharedPets> | undefined
}

export async function initialData(source: DataSource, spec: ApiSpec): Promise<InitialData> {
  const seeded =
    (seed: number, count: number): (() => Promise<Pet[]>) =>
    () =>
      generateAnimals(spec.schemas['Pet'] ?? {}, seed, count)
  const own =
    source.kind === 'seed'
      ? {
          origin: seedOrigin(source.seed, source.count),
          description: `${source.count} pets generated from seed ${source.seed}`,
          make: seeded(source.seed, source.count),
        }
      : await fixtures(source.file, spec)
  /** What was made, by origin, least recently used first: the initial data's, and the seeds'. */
  const made = new Map<string, Promise<SharedPets>>()
  const kept = (origin: string, make: () => Promise<Pet[]>): Promise<SharedPets> => {
    let pets = made.get(origin)
    if (pets === undefined) {
      const making = make().then((list) => sharePets(origin, list))
      // A failure is not kept: the next use tries again.
      making.catch(() => made.get(origin) === making && made.delete(origin))
      pets = making
    }
    made.delete(origin)
    made.set(origin, pets)
    return pets
  }
  return {
    origin: own.origin,
    description: own.description,
    sharedPets(origin) {
      if (origin === own.origin) return kept(origin, own.make)
      const seed = parseSeedOrigin(origin)
      if (seed === undefined) return undefined
      const pets = kept(origin, seeded(seed.seed, seed.count))
      const seeds = [...made.keys()].filter((key) => key !== own.origin)
      if (seeds.length > KEPT_SEEDS) made.delete(seeds[0] as string)
      return pets
    },
  }
}

/** The initial data of a fixtures file (the committed one when `file` is undefined), read and checked now. */
async function fixtures(file: string | undefined, spec: ApiSpec) {
  const pets = await readFixtures(file ?? DEFAULT_FIXTURES, spec)
  return {
    origin: `fixtures:sha256:${createHash('sha256').update(JSON.stringify(pets)).digest('hex').slice(0, 16)}`,
    description: `${pets.length} pets from ${file ?? 'the built-in fixtures'}`,
    make: async () => pets,
  }
}

/** Reads a fixtures file: a JSON array of pets that must each match the spec's Pet schema. */
export async function readFixtures(file: string, spec: ApiSpec): Promise<Pet[]> {
  let value: unknown
  try {
    value = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be read as JSON: ${(error as Error).message}`
    throw new FixturesError(`Fixtures file ${file} ${reason}`)
  }
  const bad = findBadPet(value, spec)
  if (bad)
    throw new FixturesError(
      `Fixtures file ${file} is refused: ${bad.index < 0 ? '' : `record ${bad.index} `}${bad.problem}`,
    )
  return value as Pet[]
}

/** The first record that is not a Pet, or a duplicate id; undefined when all are good. */
export function findBadPet(value: unknown, spec: ApiSpec): { index: number; problem: string } | undefined {
  if (!Array.isArray(value)) return { index: -1, problem: 'the file must hold a JSON array of pets' }
  const ids = new Set<number>()
  for (const [index, record] of value.entries()) {
    if (!spec.validatePet(record)) return { index, problem: describeErrors(spec.validatePet.errors, 'pet') }
    const id = (record as Pet).id
    if (ids.has(id)) return { index, problem: `id ${id} is used twice` }
    ids.add(id)
  }
  return undefined
}
