// The animal store: pets in memory, in id order, written through a StoreFile (store-file.ts: a data
// file, or nothing for a store in memory) before a change is acknowledged.
import { sameBaseline, type Baseline } from './baseline.js'
import type { FilesOnDisk } from './durable-io.js'
import { StorageError } from './errors.js'
import { IdempotencyKeys, type IdempotencyKey } from './idempotency-keys.js'
import { Capacity, petBytes } from './limits.js'
import {
  byId,
  collect,
  findById,
  inIdOrder,
  storedPet,
  type NewPet,
  type Pet,
  type PetStatus,
  type FrozenPets,
} from './pets.js'
import type { StoreData, StoreFile, WriteObserver } from './store-file.js'

export class AnimalStore {
  readonly #file: StoreFile
  #data: StoreData
  /** The frozen pets this store starts from (db.data.base), which come before its own. */
  #base: FrozenPets | undefined
  #nextId = 1
  #version = 0
  readonly #capacity: Capacity
  /** What this store counts in #capacity: its own pets (not the frozen ones) and their bytes. */
  #counted = { pets: 0, bytes: 0 }
  /** Set while the store is retired: what it keeps does not count in #capacity (until reinstated). */
  #released = false
  readonly #observeWrite: WriteObserver | undefined

  constructor(
    file: StoreFile,
    data: StoreData,
    base?: FrozenPets,
    capacity: Capacity = new Capacity(),
    observeWrite?: WriteObserver,
  ) {
    this.#file = file
    this.#data = data
    this.#base = base
    this.#capacity = capacity
    this.#observeWrite = file.durable ? observeWrite : undefined
    this.#index()
  }

  get size(): number {
    return (this.#base?.pets.length ?? 0) + this.#data.pets.length
  }

  /** The baseline of the frozen pets the store starts from, if any. */
  get base(): Baseline | undefined {
    return this.#base?.source
  }

  /** Changes whenever the pets do, so that what was derived from them can be reused until then. */
  get version(): number {
    return this.#version
  }

  get source(): Baseline | undefined {
    return this.#data.source
  }

  /** Whether it holds the frozen pets of `source` and nothing else: nothing added, replaced or reset to other pets. */
  holdsOnly(source: Baseline): boolean {
    return sameBaseline(this.#base?.source, source) && this.#data.pets.length === 0
  }

  /** The first `limit` pets (all without one) of `status` (any without one), in id order. */
  list({ status, limit = Infinity }: { status?: PetStatus | undefined; limit?: number | undefined }): Pet[] {
    const page: Pet[] = []
    // The frozen pets all have lower ids than the store's own.
    if (this.#base) collect(this.#base.pets, status, limit, page)
    return collect(this.#data.pets, status, limit, page)
  }

  get(id: number): Pet | undefined {
    return findById(this.#data.pets, id) ?? (this.#base && findById(this.#base.pets, id))
  }

  /** The pets it holds of its own, after the frozen ones of its base: what a shared database keeps of it. */
  get own(): readonly Pet[] {
    return this.#data.pets
  }

  /** Takes the pets another replica wrote (a shared database): nothing is written. */
  restore(data: StoreData, base: FrozenPets | undefined): void {
    this.#data = { ...data, pets: [...data.pets] }
    this.#base = base
    this.#index()
  }

  /** The Idempotency-Keys of its creates: cleared whenever its pets are replaced. */
  get idempotencyKeys(): IdempotencyKeys {
    return (this.#data.idempotencyKeys ??= new IdempotencyKeys())
  }

  /** Takes the pets another replica added after this store's own (a shared database): nothing is written. */
  takeAdded(pets: readonly Pet[]): void {
    if (pets.length === 0) return
    let bytes = 0
    for (const pet of pets) {
      this.#data.pets.push(pet)
      bytes += petBytes(pet)
    }
    this.#count(pets.length, bytes)
    this.#nextId = Math.max(this.#nextId, (pets.at(-1)?.id ?? 0) + 1)
    this.#version++
  }

  all(): readonly Pet[] {
    const own = this.#data.pets
    return this.#base ? this.#base.pets.concat(own) : own
  }

  /**
   * Adds a pet and resolves once it is on disk; if the write fails, the pet is taken back out. A
   * pet past a bound of the store's Capacity is refused (StoreFull) before anything is stored.
   */
  async add(newPet: NewPet, key?: Omit<IdempotencyKey, 'id'>): Promise<Pet> {
    const pet = storedPet(this.#nextId, newPet)
    const idempotencyKey = key && { ...key, id: pet.id }
    const bytes = petBytes(pet)
    this.#capacity.check(this.#counted, { pets: 1, bytes })
    this.#nextId++
    this.#data.pets.push(pet)
    this.#count(1, bytes)
    this.#version++
    if (idempotencyKey) this.idempotencyKeys.add(idempotencyKey)
    try {
      await this.#timed(() => this.#file.append(this.#data, [idempotencyKey ? { pet, idempotencyKey } : pet]))
    } catch (error) {
      this.idempotencyKeys.remove(idempotencyKey)
      const pets = this.#data.pets
      pets.splice(pets.lastIndexOf(pet), 1)
      this.#count(-1, -bytes)
      this.#version++
      throw new StorageError(error)
    }
    return pet
  }

  /**
   * Replaces every pet with `frozen`, copy-on-write: the store keeps a reference and the pets it
   * adds, so this costs the same whatever `frozen` holds; one append-log line. On disk before it resolves.
   */
  async fork(frozen: FrozenPets): Promise<void> {
    // A store with no files that holds these pets alone stays as it is: a reset of a namespace
    // that never changed writes nothing (its files would be taken for a deletion cut short).
    if (this.mayHave === 'none' && this.holdsOnly(frozen.source)) return
    const data = { ...(this.source === undefined ? {} : { source: this.source }), pets: [] }
    await this.#replacing(data, frozen, () => this.#file.replaceWith(this.#data, { reset: frozen.source }))
  }

  /**
   * Replaces every pet (and the source) and resolves once that is on disk. When the write fails,
   * the store is as it was (a StorageError says why): nothing is served that is not on disk.
   * `bounded`: pets a request sent, refused (StoreFull) if they would take the store past a bound.
   */
  async replace(
    data: { readonly source?: Baseline; readonly pets: readonly Pet[] },
    { bounded = false } = {},
  ): Promise<void> {
    if (bounded) {
      const bytes = data.pets.reduce((sum, pet) => sum + petBytes(pet), 0)
      const counted = this.#counted
      this.#capacity.check(counted, { pets: data.pets.length - counted.pets, bytes: bytes - counted.bytes })
    }
    await this.#replacing(data, undefined, () => this.#file.write(this.#data))
  }

  async #replacing(
    data: { readonly source?: Baseline; readonly pets: readonly Pet[] },
    base: FrozenPets | undefined,
    write: () => Promise<void>,
  ): Promise<void> {
    const before = { data: this.#data, base: this.#base }
    this.#data = {
      ...(data.source === undefined ? {} : { source: data.source }),
      ...(base === undefined ? {} : { base: base.source }),
      pets: byId(data.pets),
    }
    this.#base = base
    this.#index()
    try {
      await this.#timed(write)
    } catch (error) {
      this.#data = before.data
      this.#base = before.base
      this.#index()
      throw new StorageError(error)
    }
  }

  /** What it keeps of its own against the bounds: its pets (not the frozen ones) and their bytes. */
  get kept(): { readonly pets: number; readonly bytes: number } {
    return this.#counted
  }

  /** Which of its files may be on disk: none for one known absent that never changed. */
  get mayHave(): FilesOnDisk {
    return this.#file.mayHave
  }

  /**
   * For a store about to be removed: waits for the writes under way to settle, and folds nothing.
   * What it kept no longer counts against the bounds.
   */
  async retire(): Promise<void> {
    if (!this.#released) this.#capacity.add(-this.#counted.pets, -this.#counted.bytes)
    this.#released = true
    await this.#file.retire()
  }

  /** For a store whose removal the disk refused: it is kept, and folds on a timer again. */
  reinstate(): void {
    if (this.#released) this.#capacity.add(this.#counted.pets, this.#counted.bytes)
    this.#released = false
    this.#file.reinstate()
  }

  /** Waits for every write asked for so far. */
  flush(): Promise<void> {
    return this.#file.compact(this.#data)
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
    const data = this.#data
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
