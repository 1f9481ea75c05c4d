// The namespaces of one process: in memory, and in files beside DATA_FILE when it is set. Memory
// is their truth here: a request needs no hold, and its entry is journaled as it is answered.
import type { Logger } from 'pino'
import type { EntryOf, Keeping, LiveNamespaces, NamespaceBackend, NamespaceHold } from './namespace-backend.js'
import { NamespaceFiles, type Unloaded } from './namespace-files.js'
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
  readonly #files: NamespaceFiles

  constructor(live: LiveNamespaces, stores: Stores, logger: Pick<Logger, 'warn'>) {
    this.#live = live
    this.#stores = stores
    this.#files = new NamespaceFiles(stores, logger)
    this.keeps = stores.persistent ? 'files' : 'memory'
  }

  stored(name: string): boolean {
    return this.#files.has(name)
  }

  takeUnloaded(name: string): Unloaded | undefined {
    return this.#files.takeUnloaded(name)
  }

  open(name: string, frozen: FrozenPets | undefined): Promise<AnimalStore> {
    return this.#files.open(name, frozen)
  }

  async existing(name: string): Promise<Namespace | undefined> {
    const live = this.#live
    if (live.find(name) !== undefined) return live.get(name)
    if (!this.#files.has(name)) return undefined
    const namespace = live.get(name)
    namespace.begin() // not evicted or unloaded while its files are read
    const store = await Promise.resolve(namespace.store()).finally(() => namespace.end())
    // Files that hold only the initial data are what a deletion a crash cut short leaves: gone.
    if (namespace.busy || !store.holdsOnly(this.#stores.source) || live.find(name) !== namespace) return namespace
    live.drop(namespace)
    await this.#files.remove(name, () => namespace.store()).catch(() => undefined)
    return undefined
  }

  /** A StorageError when the disk refused: nothing changed, and it is back as it was (or made anew, reading its files). */
  async delete(name: string): Promise<boolean> {
    const namespace = this.#live.find(name)
    if (namespace === undefined && !this.#files.has(name)) return false
    this.#live.take(name)
    try {
      await this.#files.remove(name, () => namespace?.store())
    } catch (error) {
      if (namespace !== undefined && this.#live.find(name) === undefined) {
        this.#files.forget(name)
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
    for (const [name, base] of await this.#files.peek((name) => this.#live.find(name) !== undefined)) note(name, base)
    return forks
  }

  evict(namespace: Namespace): void {
    this.#files.evict(namespace)
  }

  unload(namespace: Namespace): void {
    this.#files.unload(namespace)
  }

  settled(): Promise<void> {
    return this.#files.settled()
  }
}
