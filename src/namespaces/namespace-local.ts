// The namespaces of one process: in memory, and in files beside DATA_FILE when it is set. Memory
// is their truth here: a request needs no hold, and its entry is journaled as it is answered. Of
// the files it knows which names have some not read yet, what an unloaded namespace keeps in
// memory, and the removals and unloads under way (a name used again waits for them).
import type { Logger } from 'pino'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import type {
  EntryOf,
  Keeping,
  LiveNamespaces,
  NamespaceBackend,
  NamespaceHold,
  Unloaded,
} from './namespace-backend.js'
import { NAMESPACE_NAME } from './namespace-choice.js'
import type { NamespaceQuota } from './namespace-quota.js'
import type { Namespace } from './namespace.js'
import type { RequestRecord } from '../journal/request-record.js'
import { baselineKey, type Baseline } from '../store/baseline.js'
import type { FrozenPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import type { Stores } from '../store/stores.js'

export class LocalNamespaces implements NamespaceBackend {
  readonly keeps: Keeping
  readonly keepsCounts = false
  readonly #live: LiveNamespaces
  readonly #stores: Stores
  readonly #logger: Pick<Logger, 'warn'>
  /** The names not live whose files are on disk: any other's first use reads nothing. */
  readonly #onDisk: Set<string>
  /** Deletions, evictions and unloads still under way. */
  readonly #removing = new Map<string, Promise<void>>()
  /** The namespaces unloaded from memory (among #onDisk). */
  readonly #unloaded = new Map<string, Unloaded>()
  /** NAMESPACES_PER_KEY, counted in this process. */
  readonly #quota: NamespaceQuota | undefined

  constructor(live: LiveNamespaces, stores: Stores, logger: Pick<Logger, 'warn'>, quota?: NamespaceQuota) {
    this.#live = live
    this.#stores = stores
    this.#logger = logger
    this.#quota = quota
    this.#onDisk = new Set([...stores.namespacesOnDisk].filter((name) => NAMESPACE_NAME.test(name)))
    this.keeps = stores.persistent ? 'files' : 'memory'
  }

  stored(name: string): boolean {
    return this.#onDisk.has(name)
  }

  claim(name: string, owner: string): boolean {
    return this.#quota?.claim(name, owner) ?? false
  }

  giveBack(name: string): void {
    this.#quota?.release(name)
  }

  takeUnloaded(name: string): Unloaded | undefined {
    const unloaded = this.#unloaded.get(name)
    this.#unloaded.delete(name)
    return unloaded
  }

  /**
   * Opens the store of `name` once any removal or unload of it settles: from its files, or from
   * the frozen pets `frozen` when it has none. Files the disk refused to read are a 503
   * storage_unavailable, and are read again at the next try (never served as no files).
   */
  async open(name: string, frozen: FrozenPets | undefined): Promise<AnimalStore> {
    // A removal that failed left the name among those on disk: then the files are read.
    await this.#removing.get(name)?.catch(() => undefined)
    // Its owner reaches the disk before any file of it does: a restart, even after a kill, counts it.
    await this.#quota?.durable().catch((error: unknown) => {
      throw new HttpError(
        ERRORS.storageUnavailable,
        `Namespace ${JSON.stringify(name)} could not be made: the owners of namespaces could not be written: ${(error as Error).message}`,
        RETRY_AFTER,
      )
    })
    try {
      const store = await this.#stores.open(name, !this.#onDisk.has(name), frozen)
      this.#onDisk.delete(name)
      return store
    } catch (error) {
      this.#logger.warn({ namespace: name, err: error }, 'namespace could not be read from its files')
      const why = (error as Error).message
      throw new HttpError(
        ERRORS.storageUnavailable,
        `Namespace ${JSON.stringify(name)} could not be read: ${why}`,
        RETRY_AFTER,
      )
    }
  }

  async existing(name: string): Promise<Namespace | undefined> {
    const live = this.#live
    if (live.find(name) !== undefined) return live.get(name)
    if (!this.#onDisk.has(name)) return undefined
    const namespace = live.get(name)
    namespace.begin() // not evicted or unloaded while its files are read
    const store = await Promise.resolve(namespace.store()).finally(() => namespace.end())
    // Files that hold only the initial data are what a deletion a crash cut short leaves: gone.
    if (namespace.busy || !store.holdsOnly(this.#stores.source) || live.find(name) !== namespace) return namespace
    live.drop(namespace)
    this.#quota?.release(name)
    await this.#remove(name, () => namespace.store()).catch(() => undefined)
    return undefined
  }

  /** A StorageError when the disk refused: nothing changed, and it is back as it was (or made anew, reading its files). */
  async delete(name: string): Promise<boolean> {
    const namespace = this.#live.find(name)
    if (namespace === undefined && !this.#onDisk.has(name)) return false
    this.#live.take(name)
    try {
      await this.#remove(name, () => namespace?.store())
    } catch (error) {
      if (namespace !== undefined && this.#live.find(name) === undefined) {
        this.#forget(name)
        // Back even past MAX_NAMESPACES (a new name may have taken its room meanwhile): it holds data.
        this.#live.restore(namespace)
        await Promise.resolve(namespace.store()).then(
          (store) => store.reinstate(),
          () => undefined,
        )
      }
      throw error
    }
    if (namespace) this.#live.drop(namespace)
    this.#quota?.release(name)
    return true
  }

  hold(): Promise<NamespaceHold> | undefined {
    return undefined
  }

  record(namespace: Namespace, entry: EntryOf): undefined {
    namespace.journal.record(entry())
    return undefined
  }

  later(namespace: Namespace, entry: RequestRecord): void {
    namespace.journal.record(entry)
  }

  async all(): Promise<Namespace[]> {
    return this.#live.list()
  }

  /** Those on disk are opened to see, not made live. */
  async forks(): Promise<Map<string, string[]>> {
    const forks = new Map<string, string[]>()
    const note = (name: string, base: Baseline | undefined): void => {
      if (base === undefined) return
      const key = baselineKey(base)
      forks.set(key, [...(forks.get(key) ?? []), name])
    }
    for (const namespace of this.#live.list())
      note(namespace.name, (await Promise.resolve(namespace.store()).catch(() => undefined))?.base)
    for (const name of this.#onDisk) {
      if (this.#live.find(name) !== undefined) continue
      // An unloaded one's store counts against the bounds: not opened, its base was noted.
      await this.#removing.get(name)?.catch(() => undefined)
      const unloaded = this.#unloaded.get(name)
      if (unloaded !== undefined) {
        note(name, unloaded.base)
        continue
      }
      const store = await this.#stores.open(name).catch(() => undefined)
      await store?.retire()
      note(name, store?.base)
    }
    return forks
  }

  /** Removes the files of an evicted namespace; no one waits (the disk refusing leaves them to be read at its next use). */
  evict(namespace: Namespace): void {
    this.#quota?.release(namespace.name)
    this.#remove(namespace.name, () => namespace.store()).catch((error: unknown) =>
      this.#logger.warn(
        { namespace: namespace.name, err: error },
        'namespace evicted from memory, but the disk refused its removal: kept on disk, its next use reads it',
      ),
    )
  }

  /** `namespace` leaves memory, its files kept: its next use reads them, once its writes settle. */
  unload(namespace: Namespace): void {
    const { name, clock } = namespace
    const unloaded: Unloaded = {
      baseline: namespace.baseline,
      clockOffset: clock.real ? null : clock.nowMs() - Date.now(),
    }
    this.#onDisk.add(name)
    this.#unloaded.set(name, unloaded)
    const unloading = Promise.resolve(namespace.store())
      .then(async (store) => {
        unloaded.base = store.base
        await this.#stores.unload(name, store)
      })
      .catch((error: unknown) =>
        this.#logger.warn(
          { namespace: name, err: error },
          'namespace unloaded, but its store could not be read or its last writes failed: its files hold what the disk took',
        ),
      )
    this.#track(name, unloading)
  }

  /** Waits for the removals and unloads under way. */
  async settled(): Promise<void> {
    await Promise.all([...this.#removing.values()].map((removal) => removal.catch(() => undefined)))
    await this.#quota?.durable().catch(() => undefined)
  }

  /** Forgets that `name` has files (they are about to be read, or are gone). */
  #forget(name: string): void {
    this.#onDisk.delete(name)
    this.#unloaded.delete(name)
  }

  /** Removes the files of a namespace gone from memory (`store` undefined: never opened); a use of its name meanwhile waits. */
  #remove(name: string, store: () => AnimalStore | Promise<AnimalStore> | undefined): Promise<void> {
    // An unload of it under way settles first: the store it opens is then the one on disk.
    const before = this.#removing.get(name)?.catch(() => undefined)
    // Asked for before this removal is tracked: an open waits for those before it, never for this one.
    const opened = store()
    const settled = opened === undefined ? undefined : Promise.resolve(opened).catch(() => undefined)
    return this.#track(
      name,
      (async () => {
        await before
        await this.#removeFiles(name, settled)
      })(),
    )
  }

  #track(name: string, work: Promise<void>): Promise<void> {
    const tracked = work.finally(() => {
      if (this.#removing.get(name) === tracked) this.#removing.delete(name)
    })
    this.#removing.set(name, tracked)
    return tracked
  }

  /** Once its writes settle: a refused deletion leaves its files whole; a refused removal, the initial data. */
  async #removeFiles(name: string, opened: Promise<AnimalStore | undefined> | undefined): Promise<void> {
    const stores = this.#stores
    const store = await (opened ?? stores.open(name).catch(() => undefined))
    // Unless they go, its files are read at its next use.
    const removed = await stores.remove(name, store).catch((error: unknown) => {
      this.#onDisk.add(name)
      throw error
    })
    if (removed) return this.#forget(name)
    this.#onDisk.add(name)
    this.#logger.warn(
      { namespace: name },
      'namespace deleted (reset to its initial data), but the disk refused to remove its files: its next use reads them',
    )
  }
}
