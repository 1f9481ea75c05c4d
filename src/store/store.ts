// The animal store: pets in memory, ordered by id, persisted through lowdb.
import { Low, Memory, type Adapter } from 'lowdb'
import type { components } from '../contract/api-types.js'
import { DataFileError } from './durable-io.js'
import { JournaledJsonFile, type DataFileOptions, type Layout } from './data-file.js'
import type { DroppedTail } from './journal-text.js'
import { Capacity, petBytes } from './limits.js'

export type Pet = components['schemas']['Pet']
export type NewPet = components['schemas']['NewPet']
export type PetStatus = components['schemas']['PetStatus']

/**
 * What the data file holds. `origin` names the data it was first made from. `base`, when set, is
 * the origin of shared pets (a snapshot's) that come before `pets`: a store reset to a snapshot
 * holds only the pets it added since.
 */
export interface StoreData {
  origin?: string
  base?: string
  pets: Pet[]
}

/**
 * Pets that many stores share and none changes (a snapshot's, the initial data's, a seed's): a
 * store that starts from them holds a reference, so that starting costs the same whatever they hold.
 */
export interface SharedPets {
  /** Where they come from, as a reset's journal line names it (`snapshot:<name>`, `seed:7:5`, ...). */
  readonly origin: string
  /** In ascending id order, each frozen. */
  readonly pets: readonly Pet[]
  readonly maxId: number
}

export function sharePets(origin: string, pets: readonly Pet[]): SharedPets {
  const sorted = (inIdOrder(pets) ? [...pets] : byId(pets)).map((pet) => Object.freeze(pet))
  return Object.freeze({ origin, pets: Object.freeze(sorted), maxId: sorted.at(-1)?.id ?? 0 })
}

/**
 * A journal line that replaced every pet (a reset) with the pets of `reset`: an origin a start can
 * make again (initial-data.ts), so that a reset costs one line however many pets it brings.
 */
export interface ResetRecord {
  readonly reset: string
}

/** What a data file's journal holds: added pets and resets. */
export type StoreRecord = Pet | ResetRecord

/** The status a pet gets when it is added without one: the interface leaves it open. */
export const DEFAULT_STATUS: PetStatus = 'available'

/** The pet to store: the Pet fields of `source` alone (any other property dropped), with an id. */
export function storedPet(id: number, { name, categoryId, status }: NewPet): Pet {
  return { id, name, categoryId, status: status ?? DEFAULT_STATUS }
}

export class StorageError extends Error {
  override readonly cause: unknown
  constructor(cause: unknown) {
    super(`the data file could not be written: ${(cause as Error)?.message ?? String(cause)}`)
    this.name = 'StorageError'
    this.cause = cause
  }
}

/** Told how long each acknowledged write of a data file took, in seconds (GET /metrics). */
export type WriteObserver = (seconds: number) => void

export class AnimalStore {
  readonly #db: Low<StoreData>
  /** The pets this store shares with others (db.data.base), which come before its own. */
  #base: SharedPets | undefined
  #nextId = 1
  #version = 0
  readonly #capacity: Capacity
  /** What this store counts in #capacity: its own pets (not the shared ones) and their bytes. */
  #counted = { pets: 0, bytes: 0 }
  /** Set while the store is retired: what it keeps does not count in #capacity (until reinstated). */
  #released = false
  readonly #observeWrite: WriteObserver | undefined

  constructor(
    db: Low<StoreData>,
    base?: SharedPets,
    capacity: Capacity = new Capacity(),
    observeWrite?: WriteObserver,
  ) {
    this.#db = db
    this.#base = base
    this.#capacity = capacity
    // Only a data file's writes are durable: a store in memory has none worth timing.
    this.#observeWrite = db.adapter instanceof JournaledJsonFile ? observeWrite : undefined
    this.#index()
  }

  get size(): number {
    return (this.#base?.pets.length ?? 0) + this.#db.data.pets.length
  }

  /** The origin of the shared pets the store starts from (`snapshot:<name>`), if any. */
  get base(): string | undefined {
    return this.#base?.origin
  }

  /** Changes whenever the pets do, so that what was derived from them can be reused until then. */
  get version(): number {
    return this.#version
  }

  get origin(): string | undefined {
    return this.#db.data.origin
  }

  /** Whether it holds the shared pets of `origin` and nothing else: nothing added, replaced or reset to other pets. */
  holdsOnly(origin: string): boolean {
    return this.#base?.origin === origin && this.#db.data.pets.length === 0
  }

  /** The first `limit` pets (all without one) of `status` (any without one), in id order. */
  list({ status, limit = Infinity }: { status?: PetStatus | undefined; limit?: number | undefined }): Pet[] {
    const page: Pet[] = []
    // The shared pets all have lower ids than the store's own.
    if (this.#base) collect(this.#base.pets, status, limit, page)
    return collect(this.#db.data.pets, status, limit, page)
  }

  get(id: number): Pet | undefined {
    return findById(this.#db.data.pets, id) ?? (this.#base && findById(this.#base.pets, id))
  }

  all(): readonly Pet[] {
    const own = this.#db.data.pets
    return this.#base ? this.#base.pets.concat(own) : own
  }

  /**
   * Adds a pet and resolves once it is on disk; if the write fails, the pet is taken back out. A
   * pet past a bound of the store's Capacity is refused (StoreFull) before anything is stored.
   */
  async add(newPet: NewPet): Promise<Pet> {
    const pet = storedPet(this.#nextId, newPet)
    const bytes = petBytes(pet)
    this.#capacity.check(this.#counted, { pets: 1, bytes })
    this.#nextId++
    this.#db.data.pets.push(pet)
    this.#count(1, bytes)
    this.#version++
    try {
      // A data file takes the new pet as one journal line; other adapters rewrite everything.
      const adapter = this.#db.adapter
      await this.#timed(() =>
        adapter instanceof JournaledJsonFile ? adapter.append(this.#db.data, [pet]) : this.#db.write(),
      )
    } catch (error) {
      const pets = this.#db.data.pets
      pets.splice(pets.lastIndexOf(pet), 1)
      this.#count(-1, -bytes)
      this.#version++
      throw new StorageError(error)
    }
    return pet
  }

  /**
   * Replaces every pet with `shared` (a snapshot's, the initial data's, a seed's), copy-on-write:
   * the store keeps a reference and only the pets it adds from then on, so this costs the same
   * whatever `shared` holds. A data file records it as one journal line naming `shared.origin`.
   * Atomic, and on disk before it resolves.
   */
  async fork(shared: SharedPets): Promise<void> {
    const adapter = this.#db.adapter
    const data = { ...(this.origin === undefined ? {} : { origin: this.origin }), base: shared.origin, pets: [] }
    const write =
      adapter instanceof JournaledJsonFile
        ? () => adapter.replaceWith(this.#db.data, { reset: shared.origin })
        : () => this.#db.write()
    await this.#replacing(data, shared, write)
  }

  /**
   * Replaces every pet (and the origin) and resolves once that is on disk. When the write fails,
   * the store is as it was (a StorageError says why): nothing is served that is not on disk.
   * `bounded`: pets a request sent, refused (StoreFull) if they would take the store past a bound.
   */
  async replace(
    data: { readonly origin?: string; readonly pets: readonly Pet[] },
    { bounded = false } = {},
  ): Promise<void> {
    if (bounded) {
      const bytes = data.pets.reduce((sum, pet) => sum + petBytes(pet), 0)
      const counted = this.#counted
      this.#capacity.check(counted, { pets: data.pets.length - counted.pets, bytes: bytes - counted.bytes })
    }
    await this.#replacing(data, undefined, () => this.#db.write())
  }

  async #replacing(
    data: { readonly origin?: string; readonly pets: readonly Pet[] },
    base: SharedPets | undefined,
    write: () => Promise<void>,
  ): Promise<void> {
    const before = { data: this.#db.data, base: this.#base }
    this.#db.data = {
      ...(data.origin === undefined ? {} : { origin: data.origin }),
      ...(base === undefined ? {} : { base: base.origin }),
      pets: byId(data.pets),
    }
    this.#base = base
    this.#index()
    try {
      await this.#timed(write)
    } catch (error) {
      this.#db.data = before.data
      this.#base = before.base
      this.#index()
      throw new StorageError(error)
    }
  }

  /** Whether any file of the store may be on disk: false for one known absent that never changed. */
  get mayHaveFiles(): boolean {
    const adapter = this.#db.adapter
    return adapter instanceof JournaledJsonFile && adapter.mayHaveFiles
  }

  /** Whether its data is the initial data and a reset written to a log that stores share, with no file of its own. */
  get resetsGoElsewhere(): boolean {
    const adapter = this.#db.adapter
    return adapter instanceof JournaledJsonFile && adapter.resetsGoElsewhere
  }

  /**
   * For a store about to be removed: waits for the writes under way to settle, and folds nothing.
   * What it kept no longer counts against the bounds.
   */
  async retire(): Promise<void> {
    if (!this.#released) this.#capacity.add(-this.#counted.pets, -this.#counted.bytes)
    this.#released = true
    const adapter = this.#db.adapter
    if (adapter instanceof JournaledJsonFile) await adapter.retire()
  }

  /** For a store whose removal the disk refused: it is kept, and folds on a timer again. */
  reinstate(): void {
    if (this.#released) this.#capacity.add(this.#counted.pets, this.#counted.bytes)
    this.#released = false
    const adapter = this.#db.adapter
    if (adapter instanceof JournaledJsonFile) adapter.reinstate()
  }

  /** Waits for every write asked for so far. */
  async flush(): Promise<void> {
    const adapter = this.#db.adapter
    // A data file is rewritten only if its journal holds something: stopping an unchanged store is free.
    await (adapter instanceof JournaledJsonFile ? adapter.compact(this.#db.data) : this.#db.write())
  }

  /** Runs `write`, telling #observeWrite its time once it is acknowledged (failures are not timed). */
  async #timed(write: () => Promise<void>): Promise<void> {
    if (this.#observeWrite === undefined) return write()
    const started = performance.now()
    await write()
    this.#observeWrite((performance.now() - started) / 1000)
  }

  /** The store's own pets are kept in ascending id order, which is all that finding one needs. */
  #index(): void {
    this.#version++
    const data = this.#db.data
    if (!inIdOrder(data.pets)) data.pets = byId(data.pets)
    this.#nextId = Math.max(this.#base?.maxId ?? 0, data.pets.at(-1)?.id ?? 0) + 1
    const bytes = data.pets.reduce((sum, pet) => sum + petBytes(pet), 0)
    this.#count(data.pets.length - this.#counted.pets, bytes - this.#counted.bytes)
  }

  #count(pets: number, bytes: number): void {
    this.#counted = { pets: this.#counted.pets + pets, bytes: this.#counted.bytes + bytes }
    if (!this.#released) this.#capacity.add(pets, bytes)
  }
}

/** Adds to `page` the pets of `pets` with `status` (any without one) until it holds `limit`; returns it. */
function collect(pets: readonly Pet[], status: PetStatus | undefined, limit: number, page: Pet[]): Pet[] {
  for (const pet of pets) {
    if (page.length >= limit) break
    if (status === undefined || pet.status === status) page.push(pet)
  }
  return page
}

/**
 * The pet with `id` among `pets` (in ascending id order): where consecutive ids put it, as they
 * do unless a write failed, or else by bisection. No index: at 200,000 pets a Map of them took
 * 7 MB.
 */
function findById(pets: readonly Pet[], id: number): Pet | undefined {
  const first = pets[0]
  if (first === undefined) return undefined
  const guess = pets[id - first.id]
  if (guess?.id === id) return guess
  let low = 0
  let high = pets.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const pet = pets[middle] as Pet
    if (pet.id === id) return pet
    if (pet.id < id) low = middle + 1
    else high = middle - 1
  }
  return undefined
}

function inIdOrder(pets: readonly Pet[]): boolean {
  for (let i = 1; i < pets.length; i++) if ((pets[i] as Pet).id < (pets[i - 1] as Pet).id) return false
  return true
}

/** Pets in ascending id order, as the store keeps them (a copy). */
function byId(pets: readonly Pet[]): Pet[] {
  return [...pets].sort((a, b) => a.id - b.id)
}

/**
 * Where a store with no file of its own writes a reset (one line in the namespaces' shared log,
 * namespace-origins.ts), and the origin of the last one written there.
 */
export interface ResetsElsewhere {
  readonly origin: string | undefined
  readonly write: (origin: string) => Promise<void>
}

export interface OpenStoreOptions {
  /** A file path, or undefined for a store that lives in memory only. */
  readonly dataFile: string | undefined
  /** What the store is made from when the data file is missing or was made from other data. */
  readonly origin: string
  /**
   * The shared pets of an origin a store may start from, or a journal's reset names: a snapshot's,
   * the initial data's, a seed's (initial-data.ts); undefined for one this start cannot make.
   */
  readonly sharedPets: (origin: string) => SharedPets | Promise<SharedPets> | undefined
  /**
   * Whether a store made from the initial data is written only once it changes (a namespace): until
   * then nothing is on disk, and what a restart finds is the initial data again.
   */
  readonly unwrittenUntilChanged?: boolean
  /** Set when the caller knows that the data file is not there (nor its journal): nothing is read. */
  readonly absent?: boolean
  /** For a store written only once it changes: where its resets go while it has no file of its own. */
  readonly resetsElsewhere?: ResetsElsewhere
  /** Checks records read from a data file; returns the index of the first bad one and why. */
  readonly checkPets: (pets: unknown) => { index: number; problem: string } | undefined
  /** How the data file is written: the real file system and compaction policy unless a test says otherwise. */
  readonly storage?: DataFileOptions | undefined
  /** What every store of the sandbox keeps, against the bounds: a store of its own unless given. */
  readonly capacity?: Capacity
  /** Told the time of each acknowledged write (GET /metrics); none by default. */
  readonly observeWrite?: WriteObserver | undefined
}

export interface OpenedStore {
  readonly store: AnimalStore
  /** How the data was obtained, for the start banner. */
  readonly source: 'data file' | 'initial data'
  /** Set when an existing data file was rebuilt because it was made from other data. */
  readonly replacedOrigin: string | undefined
  /** Set when the end of the journal held no whole record (an append a crash cut short) and was dropped. */
  readonly droppedTail: DroppedTail | undefined
}

export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  // A store written once and whole (the default namespace's) holds the initial pets as its own, so
  // that its file lists them; one written only once it changes (a namespace) shares them.
  const initialPets = async (): Promise<SharedPets> => {
    const shared = await options.sharedPets(options.origin)
    if (shared === undefined) throw new Error(`no data of origin ${options.origin}`)
    return shared
  }
  const initial = async (): Promise<StoreData> => ({ origin: options.origin, pets: [...(await initialPets()).pets] })
  const sharedInitial = async (): Promise<StoreData> => ({ origin: options.origin, base: options.origin, pets: [] })
  const adapter: Adapter<StoreData> =
    options.dataFile === undefined
      ? new Memory<StoreData>()
      : new JournaledJsonFile<StoreData, StoreRecord>(options.dataFile, 'pets', options.storage, {
          replay: replayer(options.dataFile, options),
          startsOver: isReset,
          ...(options.unwrittenUntilChanged ? { unwritten: unwrittenLayout(options, sharedInitial) } : {}),
        })
  const db = new Low<StoreData>(adapter, { pets: [] })
  const existing = options.absent && adapter instanceof JournaledJsonFile ? adapter.readAbsent() : await adapter.read()
  const droppedTail = adapter instanceof JournaledJsonFile ? adapter.droppedTail : undefined
  if (existing !== null && options.dataFile !== undefined) {
    const data = checkData(existing, options.dataFile, options.checkPets)
    // A file made from other data (another seed, count or fixtures) is rebuilt from the data
    // asked for now; a file with no recorded origin is the user's own and is always kept.
    if (data.origin === undefined || data.origin === options.origin) {
      db.data = data
      const store = new AnimalStore(
        db,
        data.base === undefined ? undefined : await sharedBase(data.base, options),
        options.capacity,
        options.observeWrite,
      )
      return { store, source: 'data file', replacedOrigin: undefined, droppedTail }
    }
    const store = new AnimalStore(db, undefined, options.capacity, options.observeWrite)
    await writeInitialData(store, await initial(), options.dataFile)
    return { store, source: 'initial data', replacedOrigin: data.origin, droppedTail }
  }
  const opened = { source: 'initial data', replacedOrigin: undefined, droppedTail: undefined } as const
  // Nothing to write: the first change writes the journal that names the initial data.
  if (options.unwrittenUntilChanged) {
    db.data = await sharedInitial()
    return { store: new AnimalStore(db, await initialPets(), options.capacity, options.observeWrite), ...opened }
  }
  const store = new AnimalStore(db, undefined, options.capacity, options.observeWrite)
  await writeInitialData(store, await initial(), options.dataFile)
  return { store, ...opened }
}

/** A store that is on disk only once it changes: its journal names the initial data, and its resets may go elsewhere. */
function unwrittenLayout(
  options: OpenStoreOptions,
  data: () => Promise<StoreData>,
): NonNullable<Layout<StoreData, StoreRecord>['unwritten']> {
  const id = `initial:${options.origin}`
  const elsewhere = options.resetsElsewhere
  if (elsewhere === undefined) return { id, data }
  const reset = elsewhere.origin === undefined ? undefined : { reset: elsewhere.origin }
  return {
    id,
    data,
    resets: {
      reset,
      write: (record) => {
        // Only a reset is ever written elsewhere (data-file.ts: a job of one replacing record).
        if (!isReset(record)) throw new Error('only a reset is written outside the data file')
        return elsewhere.write(record.reset)
      },
    },
  }
}

/** The shared pets a data file starts from: a file whose snapshot is gone cannot be served. */
async function sharedBase(base: string, options: OpenStoreOptions): Promise<SharedPets> {
  const shared = await options.sharedPets(base)
  if (shared === undefined)
    throw new DataFileError(options.dataFile ?? '', `starts from ${base}, which is not there; it was left untouched`)
  return shared
}

/**
 * How a start applies a journal's records: a pet is added, a reset replaces every pet (a reset to
 * shared pets keeps only their origin: the store holds a reference to them). Only the last reset
 * and what follows it make the data: what an earlier one named need not be made again, and may be
 * gone (a snapshot deleted once no store started from it).
 */
function replayer(file: string, options: OpenStoreOptions): NonNullable<Layout<StoreData, StoreRecord>['replay']> {
  return async (data, records) => {
    for (const record of records.slice(Math.max(0, records.findLastIndex(isReset)))) {
      if (!isReset(record)) {
        data.pets.push(record)
        continue
      }
      delete data.base
      if ((await options.sharedPets(record.reset)) !== undefined) {
        data.base = record.reset
        data.pets = []
        continue
      }
      // A reset to data this start cannot make (fixtures of other settings) is in a store of
      // another origin, which the start rebuilds from its own data: what it held does not matter.
      if (data.origin === options.origin || data.origin === undefined)
        throw new DataFileError(
          `${file}.journal`,
          `resets to ${record.reset}, which this start cannot make; it was left untouched`,
        )
      data.pets = []
    }
    return data
  }
}

function isReset(record: StoreRecord): record is ResetRecord {
  return typeof (record as Partial<ResetRecord>).reset === 'string'
}

/** The first write of a data file: when it fails, the setting is at fault, and the message names the file. */
async function writeInitialData(store: AnimalStore, data: StoreData, file: string | undefined): Promise<void> {
  try {
    await store.replace(data)
  } catch (error) {
    const cause = error instanceof StorageError ? error.cause : error
    if (file === undefined || (cause as NodeJS.ErrnoException).code === undefined) throw cause
    throw new DataFileError(file, `cannot be written: ${(cause as Error).message}`)
  }
}

function checkData(value: unknown, file: string, checkPets: OpenStoreOptions['checkPets']): StoreData {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Array.isArray((value as StoreData).pets)
  ) {
    throw new DataFileError(file, 'must hold a JSON object with a "pets" array; it was left untouched')
  }
  const { origin, base, pets } = value as StoreData
  if (origin !== undefined && typeof origin !== 'string')
    throw new DataFileError(file, 'has an "origin" that is not a string; it was left untouched')
  if (base !== undefined && typeof base !== 'string')
    throw new DataFileError(file, 'has a "base" that is not a string; it was left untouched')
  const bad = checkPets(pets)
  if (bad)
    throw new DataFileError(file, `has an invalid pet at index ${bad.index}: ${bad.problem}; it was left untouched`)
  return { ...(origin === undefined ? {} : { origin }), ...(base === undefined ? {} : { base }), pets }
}
