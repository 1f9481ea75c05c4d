// Named snapshots: a namespace's pets and clock frozen under a name, which a reset starts any
// namespace from, copy-on-write (FrozenPets). Each is its own file (files.ts), written durably
// before it is acknowledged and read back at start before any store (whose append log may name one):
//
//   db.snapshot.<name>.json   {"name", "namespace", "createdAt", "clock", "pets": [...]}
import { dirname } from 'node:path'
import { replaceFileDurably } from './durable-io.js'
import { DataFileError, StorageError } from './errors.js'
import { nodeFileSystem, type FileSystem } from './file-system.js'
import { fileBeside, scanFiles, tempOf } from './files.js'
import type { Baseline } from './baseline.js'
import type { TempFiles } from './temp-files.js'
import { freezePets, type Pet, type FrozenPets } from './pets.js'

export interface Snapshot {
  readonly name: string
  /** The namespace it was taken from. */
  readonly namespace: string
  readonly createdAt: string
  /** The namespace's clock when it was taken; null when that clock followed real time. */
  readonly clock: string | null
  readonly pets: FrozenPets
}

/** A snapshot of that name exists already: a snapshot never changes, so its name is taken. */
export class SnapshotExists extends Error {}

/** A snapshot as a shelf keeps it. */
export interface StoredSnapshot extends Omit<Snapshot, 'pets'> {
  readonly pets: readonly Pet[]
}

/** Where snapshots are kept instead of files: a database replicas share (src/shared). */
export interface SnapshotShelf {
  /** Every snapshot, oldest first, its time bounded from `came` as put's. */
  all(came?: number): Promise<StoredSnapshot[]>
  /** Keeps a new one, its time bounded from `came` (Exchange.came) as the request's; false when the name is taken. */
  put(snapshot: StoredSnapshot, came?: number): Promise<boolean>
  /** Removes one unless namespaces start from it: then their names. `came` as put's. */
  remove(name: string, came?: number): Promise<{ deleted: boolean; users: string[] }>
}

export interface SnapshotsOptions {
  /** The data file the snapshot files sit beside; undefined: in memory only. */
  readonly dataFile: string | undefined
  readonly fileSystem?: FileSystem | undefined
  /** Checks the pets read from a snapshot file; returns the index of the first bad one and why. */
  readonly checkPets: (pets: unknown) => { index: number; problem: string } | undefined
  /** The names with files, as the start found them; else the directory is looked at. */
  readonly names?: Iterable<string>
  /** Set when the snapshots are kept on a shelf (a shared database) rather than in files. */
  readonly shelf?: SnapshotShelf | undefined
  /** Told how each write went, to sweep the temporary files failures left. */
  readonly temps?: TempFiles | undefined
}

export class Snapshots {
  readonly #options: SnapshotsOptions
  readonly #fs: FileSystem
  /** Oldest first. */
  readonly #byName = new Map<string, Snapshot>()
  /** Names being created or deleted: taken for a create, unknown to a reset. */
  readonly #busy = new Set<string>()

  private constructor(options: SnapshotsOptions) {
    this.#options = options
    this.#fs = options.fileSystem ?? nodeFileSystem
  }

  /** The snapshots on disk beside the data file; a file that cannot be read stops the start, naming it. */
  static async open(options: SnapshotsOptions): Promise<Snapshots> {
    const snapshots = new Snapshots(options)
    if (options.shelf !== undefined) {
      await snapshots.refresh()
      return snapshots
    }
    const { dataFile, names } = options
    const onDisk = dataFile === undefined ? [] : [...(names ?? (await scanFiles(dataFile)).snapshots)]
    const found = await Promise.all(onDisk.map((name) => snapshots.#read(name)))
    found.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    for (const snapshot of found) snapshots.#byName.set(snapshot.name, snapshot)
    return snapshots
  }

  /**
   * With a shelf: takes what other replicas made or deleted. Without one there is nothing to read,
   * and nothing to wait for: undefined (every reset asks).
   */
  refresh(came?: number): Promise<void> | undefined {
    const { shelf } = this.#options
    return shelf && this.#take(shelf, came)
  }

  async #take(shelf: SnapshotShelf, came?: number): Promise<void> {
    const { checkPets } = this.#options
    const kept = await shelf.all(came)
    const known = new Map(this.#byName)
    this.#byName.clear()
    for (const stored of kept) {
      const seen = known.get(stored.name)
      if (seen?.createdAt === stored.createdAt) this.#byName.set(stored.name, seen)
      else {
        const bad = checkPets(stored.pets)
        if (bad)
          throw new Error(`snapshot ${stored.name} in the database has an invalid pet at ${bad.index}: ${bad.problem}`)
        this.#byName.set(stored.name, {
          ...stored,
          pets: freezePets({ kind: 'snapshot', name: stored.name }, stored.pets),
        })
      }
    }
  }

  get(name: string): Snapshot | undefined {
    return this.#busy.has(name) ? undefined : this.#byName.get(name)
  }

  /** A snapshot's frozen pets, for a store that starts from them. */
  frozenPets(source: Baseline): FrozenPets | undefined {
    return source.kind === 'snapshot' ? this.#byName.get(source.name)?.pets : undefined
  }

  list(): Snapshot[] {
    return [...this.#byName.values()].filter((snapshot) => !this.#busy.has(snapshot.name))
  }

  /**
   * Freezes `pets` and `clock` under `name`, on disk before it resolves (a StorageError when the
   * disk refuses: nothing is kept). SnapshotExists when the name is taken.
   */
  async create(
    name: string,
    namespace: string,
    pets: readonly Pet[],
    clock: Date | undefined,
    came?: number,
  ): Promise<Snapshot> {
    if (this.#byName.has(name) || this.#busy.has(name)) throw new SnapshotExists(name)
    this.#busy.add(name)
    try {
      const snapshot: Snapshot = {
        name,
        namespace,
        createdAt: new Date().toISOString(),
        clock: clock === undefined ? null : clock.toISOString(),
        pets: freezePets({ kind: 'snapshot', name }, pets),
      }
      const file = this.fileOf(name)
      const { shelf } = this.#options
      if (shelf !== undefined && !(await shelf.put({ ...snapshot, pets: snapshot.pets.pets }, came)))
        throw new SnapshotExists(name)
      if (file !== undefined) {
        const { pets: shared, ...facts } = snapshot
        const bytes = Buffer.from(JSON.stringify({ ...facts, pets: shared.pets }))
        let renamed = false
        await replaceFileDurably(file, tempOf(file), bytes, {
          fs: this.#fs,
          temps: this.#options.temps,
          renamed: () => (renamed = true),
        }).catch(async (error: unknown) => {
          // Renamed, then the directory fsync failed: the snapshot is refused, so its file goes.
          if (renamed) await this.#fs.remove(file).catch(() => undefined)
          throw new StorageError(error)
        })
      }
      this.#byName.set(name, snapshot)
      return snapshot
    } finally {
      this.#busy.delete(name)
    }
  }

  /**
   * Deletes a snapshot once `inUse` (run while a reset no longer finds it) names no store that
   * starts from it; else nothing changes and those names are returned. The unlink is the deletion
   * (a refused one is a StorageError); a failed directory fsync after it does not undo it: only a
   * crash may bring the file back, of a snapshot no store can have started from since.
   */
  async delete(
    name: string,
    inUse: () => Promise<string[]>,
    came?: number,
  ): Promise<{ deleted: boolean; users: string[] }> {
    if (!this.#byName.has(name) || this.#busy.has(name)) return { deleted: false, users: [] }
    this.#busy.add(name)
    try {
      if (this.#options.shelf !== undefined) {
        const removed = await this.#options.shelf.remove(name, came)
        if (removed.deleted) this.#byName.delete(name)
        return removed
      }
      const users = await inUse()
      if (users.length > 0) return { deleted: false, users }
      const file = this.fileOf(name)
      if (file !== undefined) {
        await this.#fs.remove(file).catch((error: unknown) => {
          throw new StorageError(error)
        })
        await this.#fs.syncDirectory(dirname(file)).catch(() => undefined)
      }
      this.#byName.delete(name)
      return { deleted: true, users: [] }
    } finally {
      this.#busy.delete(name)
    }
  }

  fileOf(name: string): string | undefined {
    const file = this.#options.dataFile
    return file === undefined ? undefined : fileBeside(file, 'snapshot', name)
  }

  async #read(name: string): Promise<Snapshot> {
    const file = this.fileOf(name) as string
    let value: Partial<Record<keyof Snapshot, unknown>>
    try {
      value = JSON.parse((await this.#fs.readFile(file)).toString('utf8')) as typeof value
    } catch (error) {
      throw new DataFileError(file, `cannot be read as a snapshot: ${(error as Error).message}; it was left untouched`)
    }
    const { namespace, createdAt, clock, pets } = value
    if (
      value.name !== name ||
      typeof namespace !== 'string' ||
      typeof createdAt !== 'string' ||
      (clock !== null && typeof clock !== 'string')
    )
      throw new DataFileError(
        file,
        'must hold a snapshot object (name, namespace, createdAt, clock, pets); it was left untouched',
      )
    const bad = this.#options.checkPets(pets)
    if (bad)
      throw new DataFileError(file, `has an invalid pet at index ${bad.index}: ${bad.problem}; it was left untouched`)
    return { name, namespace, createdAt, clock, pets: freezePets({ kind: 'snapshot', name }, pets as Pet[]) }
  }
}
