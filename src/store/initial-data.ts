// The data a fresh store starts from: the committed fixtures, a user's fixtures file, or pets
// generated from a seed.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { DEFAULT_FIXTURES } from '../paths.js'
import { describeErrors } from '../contract/load.js'
import { type ApiSpec } from '../contract/types.js'
import { baselineKey, type Baseline } from './baseline.js'
import { generateAnimals } from './seed.js'
import { freezePets, type Pet, type FrozenPets } from './pets.js'

/** The setting of the initial data: a fixtures file (the committed one when undefined), or a seed. */
export type InitialDataSetting =
  | { readonly kind: 'fixtures'; readonly file: string | undefined }
  | { readonly kind: 'seed'; readonly seed: number; readonly count: number }

export class FixturesError extends Error {
  override readonly name = 'FixturesError'
}

/** How many seeds' pets are kept once a reset has made them, for the next reset to the same seed. */
export const KEPT_SEEDS = 8

export interface InitialData {
  /** Recorded in the data file, so a restart with other data settings rebuilds it. */
  readonly source: Baseline
  /** For the start banner. */
  readonly description: string
  /**
   * The pets of a baseline this start can make (its own data's, any seed's), made once and frozen
   * by every store that starts from them: each holds a reference and only the pets it adds itself.
   * The initial data's are kept for good, the last KEPT_SEEDS seeds' for the next reset to them.
   * Undefined for a baseline this start cannot make.
   */
  readonly frozenPets: (source: Baseline) => Promise<FrozenPets> | undefined
}

export async function initialData(setting: InitialDataSetting, spec: ApiSpec): Promise<InitialData> {
  const seeded =
    (seed: number, count: number): (() => Promise<Pet[]>) =>
    () =>
      generateAnimals(spec.schemas['Pet'] ?? {}, seed, count)
  const own =
    setting.kind === 'seed'
      ? {
          source: setting,
          description: `${setting.count} pets generated from seed ${setting.seed}`,
          make: seeded(setting.seed, setting.count),
        }
      : await fixtures(setting.file, spec)
  const ownKey = baselineKey(own.source)
  /** What was made, by baselineKey, least recently used first: the initial data's, and the seeds'. */
  const made = new Map<string, Promise<FrozenPets>>()
  const kept = (source: Baseline, make: () => Promise<Pet[]>): Promise<FrozenPets> => {
    const key = baselineKey(source)
    let pets = made.get(key)
    if (pets === undefined) {
      const making = make().then((list) => freezePets(source, list))
      // A failure is not kept: the next use tries again.
      making.catch(() => made.get(key) === making && made.delete(key))
      pets = making
    }
    made.delete(key)
    made.set(key, pets)
    return pets
  }
  return {
    source: own.source,
    description: own.description,
    frozenPets(source) {
      if (baselineKey(source) === ownKey) return kept(own.source, own.make)
      if (source.kind !== 'seed') return undefined
      const pets = kept(source, seeded(source.seed, source.count))
      const seeds = [...made.keys()].filter((key) => key !== ownKey)
      if (seeds.length > KEPT_SEEDS) made.delete(seeds[0] as string)
      return pets
    },
  }
}

/** The initial data of a fixtures file (the committed one when `file` is undefined), read and checked now. */
async function fixtures(file: string | undefined, spec: ApiSpec) {
  const pets = await readFixtures(file ?? DEFAULT_FIXTURES, spec)
  const sha256 = createHash('sha256').update(JSON.stringify(pets)).digest('hex').slice(0, 16)
  return {
    source: { kind: 'fixtures', sha256 } as const,
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
