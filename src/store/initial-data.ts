// The data a fresh store starts from: the committed fixtures, a user's fixtures file, or pets
// generated from a seed.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { DEFAULT_FIXTURES } from '../paths.js'
import { describeErrors } from '../spec/load.js'
import { type ApiSpec } from '../spec/types.js'
import { parseSeedOrigin, seedOrigin } from './origin.js'
import { generateAnimals } from './seed.js'
import { sharePets, type Pet, type SharedPets } from './store.js'

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

export interface InitialData {
  /** Recorded in the data file, so a restart with other data settings rebuilds it. */
  readonly origin: string
  /** For the start banner. */
  readonly description: string
  /**
   * The pets, made on first use and then shared by every store made from them (a namespace's first
   * use, a reset): each store holds a reference and only the pets it adds itself.
   */
  readonly pets: () => Promise<SharedPets>
  /** The pets of an origin, when this start can make them: any seed's, and its own data's. */
  readonly petsOf: (origin: string) => Promise<readonly Pet[]> | undefined
}

export async function initialData(source: DataSource, spec: ApiSpec): Promise<InitialData> {
  const seeded = (seed: number, count: number): Promise<Pet[]> =>
    generateAnimals(spec.schemas['Pet'] ?? {}, seed, count)
  const withOrigin = (origin: string, description: string, make: () => Promise<Pet[]>): InitialData => {
    let shared: Promise<SharedPets> | undefined
    const pets = (): Promise<SharedPets> => {
      shared ??= make().then((made) => sharePets(origin, made))
      // A failure is not kept: the next use tries again.
      shared.catch(() => (shared = undefined))
      return shared
    }
    return {
      origin,
      description,
      pets,
      petsOf(asked) {
        if (asked === origin) return pets().then((shared) => shared.pets)
        const seed = parseSeedOrigin(asked)
        return seed && seeded(seed.seed, seed.count)
      },
    }
  }
  if (source.kind === 'seed')
    return withOrigin(
      seedOrigin(source.seed, source.count),
      `${source.count} pets generated from seed ${source.seed}`,
      () => seeded(source.seed, source.count),
    )
  const file = source.file ?? DEFAULT_FIXTURES
  const pets = await readFixtures(file, spec)
  const text = JSON.stringify(pets)
  return withOrigin(
    `fixtures:sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`,
    `${pets.length} pets from ${source.file ?? 'the built-in fixtures'}`,
    async () => pets,
  )
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
