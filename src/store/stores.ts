// The store's one door: openStores() takes DATA_FILE's lock, tidies what a kill left, reads the
// named snapshots and opens the default namespace's store; namespaces' stores open and go through it.
import type { Logger } from 'pino'
import type { ApiSpec } from '../contract/types.js'
import { DataFileLock } from './data-file-lock.js'
import type { DataFileOptions } from './data-file.js'
import { removeDataFile } from './durable-io.js'
import { StorageError } from './errors.js'
import { nodeFileSystem } from './file-system.js'
import { fileBeside, scanFiles, tidyFiles } from './files.js'
import { baselineKey, type Baseline } from './baseline.js'
import { findBadPet, initialData, type InitialDataSetting } from './initial-data.js'
import { describeDroppedTail } from './append-log-text.js'
import { Capacity, type StoreBounds } from './limits.js'
import { openStore, type OpenStoreOptions } from './open-store.js'
import { Snapshots, type SnapshotShelf } from './snapshots.js'
import type { FrozenPets } from './pets.js'
import type { AnimalStore } from './store.js'
import type { WriteObserver } from './store-file.js'
import { TempFiles } from './temp-files.js'

export interface StoresSettings {
  /** Undefined: every store lives in memory only. */
  readonly dataFile: string | undefined
  readonly initialData: InitialDataSetting
  readonly spec: ApiSpec
  readonly bounds: StoreBounds
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>
  /** Told the time of each acknowledged write (GET /metrics). */
  readonly observeWrite?: WriteObserver | undefined
  /** How data files are written: tests pass a file system that fails chosen calls. */
  readonly storage?: DataFileOptions | undefined
  /** Where named snapshots are kept instead of files beside DATA_FILE (a shared database). */
  readonly snapshotShelf?: SnapshotShelf | undefined
}

export interface Stores {
  /** The default namespace's store. */
  readonly default: AnimalStore
  readonly snapshots: Snapshots
  /** The baseline of the initial data every namespace starts from. */
  readonly source: Baseline
  /** What the default store holds, for the banner; and whether it came from the data file. */
  readonly description: string
  readonly fromDataFile: boolean
  /** The namespaces with files beside DATA_FILE at start. */
  readonly namespacesOnDisk: ReadonlySet<string>
  /** Whether namespaces' stores are kept in files (DATA_FILE): one can leave memory and be read back. */
  readonly persistent: boolean
  /** The pets of the initial data or a seed, made once and frozen. */
  frozenPets(source: Baseline): Promise<FrozenPets>
  /** A namespace's store; `absent`: no file of it is there, and it starts from `frozen` if given. */
  open(namespace: string, absent?: boolean, frozen?: FrozenPets): Promise<AnimalStore>
  /**
   * Removes a namespace's files once its writes settle (`store` undefined: it did not open). With a
   * store, the deletion is made durable first as a reset to the initial data (refused: a
   * StorageError, nothing changed). False when the disk then kept the files, which hold that reset.
   */
  remove(namespace: string, store: AnimalStore | undefined): Promise<boolean>
  /**
   * A namespace's store leaves memory, its files kept, once its writes settle: what it keeps goes
   * on counting against the bounds, until its store is opened again or its files removed.
   */
  unload(namespace: string, store: AnimalStore): Promise<void>
  /** Lets go of DATA_FILE's lock, once every write is done. */
  close(): Promise<void>
}

export async function openStores(settings: StoresSettings): Promise<Stores> {
  const { dataFile, logger } = settings
  if (dataFile === undefined) return open(settings, undefined)
  const lock = await DataFileLock.acquire(dataFile, (message) => logger.error({ file: dataFile }, message))
  try {
    return await open(settings, lock)
  } catch (error) {
    await lock.release()
    throw error
  }
}

async function open(settings: StoresSettings, lock: DataFileLock | undefined): Promise<Stores> {
  const { dataFile, spec, logger, storage } = settings
  const fs = storage?.fileSystem ?? nodeFileSystem
  const found = dataFile === undefined ? undefined : await scanFiles(dataFile)
  const temps = dataFile === undefined ? undefined : new TempFiles(dataFile, fs)
  if (dataFile !== undefined && found !== undefined) {
    const removed = await tidyFiles(dataFile, found, fs)
    if (removed.length > 0) logger.info({ files: removed }, 'removed temporary files a crash or a failure left')
    if (removed.length < found.temporary.length) temps?.failed()
  }
  const checkPets = (pets: unknown) => findBadPet(pets, spec)
  const initial = await initialData(settings.initialData, spec)
  // Before any store: a store's append log may start from a snapshot.
  const snapshots = await Snapshots.open({
    dataFile,
    fileSystem: storage?.fileSystem,
    checkPets,
    names: found?.snapshots,
    shelf: settings.snapshotShelf,
    temps,
  })
  const capacity = new Capacity(settings.bounds)
  // What the namespaces unloaded from memory keep on disk, still counted in `capacity`.
  const unloaded = new Map<string, AnimalStore['kept']>()
  const reclaim = (name: string): void => {
    const kept = unloaded.get(name)
    if (kept === undefined) return
    unloaded.delete(name)
    capacity.add(-kept.pets, -kept.bytes)
  }
  const options: Omit<OpenStoreOptions, 'dataFile'> = {
    source: initial.source,
    frozenPets: (source) => snapshots.frozenPets(source) ?? initial.frozenPets(source),
    checkPets,
    storage: { ...storage, temps },
    capacity,
    observeWrite: settings.observeWrite,
  }
  const openOne = async (file: string | undefined, more: Partial<OpenStoreOptions> = {}) => {
    const opened = await openStore({ ...options, dataFile: file, ...more })
    if (opened.droppedTail) logger.warn({ file: opened.droppedTail.file }, describeDroppedTail(opened.droppedTail))
    return opened
  }
  const opened = await openOne(dataFile)
  if (opened.replacedSource)
    logger.warn(
      { file: dataFile, was: baselineKey(opened.replacedSource), now: baselineKey(initial.source) },
      'data file was made from other data: rebuilt',
    )
  const fromDataFile = opened.from === 'data file'
  // A dropped append-log tail is said where a user looks at start, the banner, not only in the log.
  const dropped = opened.droppedTail ? `; ${describeDroppedTail(opened.droppedTail)}` : ''
  const fileOf = (name: string) => (dataFile === undefined ? undefined : fileBeside(dataFile, 'ns', name))
  const frozenPets = (source: Baseline): Promise<FrozenPets> =>
    initial.frozenPets(source) ?? Promise.reject(new Error(`no data of ${baselineKey(source)}`))
  return {
    default: opened.store,
    snapshots,
    source: initial.source,
    description: fromDataFile ? `${opened.store.size} pets from ${dataFile}${dropped}` : initial.description,
    fromDataFile,
    namespacesOnDisk: found?.namespaces ?? new Set(),
    persistent: dataFile !== undefined,
    frozenPets,
    async open(name, absent = false, frozen) {
      const { store } = await openOne(fileOf(name), { unwrittenUntilChanged: true, absent, frozen })
      // The store opened counts what it keeps itself.
      reclaim(name)
      return store
    },
    async unload(name, store) {
      await store.retire()
      const { kept } = store
      capacity.add(kept.pets, kept.bytes)
      unloaded.set(name, kept)
    },
    async remove(name, store) {
      const file = fileOf(name)
      await store?.retire()
      if (file === undefined || store?.mayHave === 'none') return true
      if (store !== undefined) await store.fork(await frozenPets(initial.source))
      try {
        await removeDataFile(file, fs, store?.mayHave)
        reclaim(name)
        return true
      } catch (error) {
        if (store === undefined) throw new StorageError(error)
        return false
      }
    },
    close: async () => lock?.release(),
  }
}
