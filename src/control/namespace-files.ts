// The files of namespaces beside DATA_FILE, as the registry needs to know them: which names have
// files not yet read, what an unloaded namespace keeps in memory, and the removals and unloads
// under way (a name used again waits for them).
import type { Logger } from 'pino'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { NAMESPACE_NAME } from './namespace-choice.js'
import type { Namespace } from './namespace.js'
import type { Baseline } from '../store/baseline.js'
import type { AnimalStore } from '../store/store.js'
import type { Stores } from '../store/stores.js'

/** What a namespace unloaded from memory keeps there, beside its files: a few facts, not its pets. */
export interface Unloaded {
  /** Its baseline (a trace's snapshot, or the initial data). */
  readonly baseline: Baseline
  /** Its clock's distance from real time in ms (its baseline's clock runs on); null for real time. */
  readonly clockOffset: number | null
  /** The baseline of the frozen pets its store starts from, once known (for forks()). */
  base?: Baseline | undefined
}

export class NamespaceFiles {
  readonly #stores: Stores
  readonly #logger: Pick<Logger, 'warn'>
  /** The names not live whose files are on disk: any other's first use reads nothing. */
  readonly #onDisk: Set<string>
  /** Deletions, evictions and unloads still under way. */
  readonly #removing = new Map<string, Promise<void>>()
  /** The namespaces unloaded from memory (among #onDisk). */
  readonly #unloaded = new Map<string, Unloaded>()

  constructor(stores: Stores, logger: Pick<Logger, 'warn'>) {
    this.#stores = stores
    this.#logger = logger
    this.#onDisk = new Set([...stores.namespacesOnDisk].filter((name) => NAMESPACE_NAME.test(name)))
  }

  /** Whether `name` has files not read yet. */
  has(name: string): boolean {
    return this.#onDisk.has(name)
  }

  names(): string[] {
    return [...this.#onDisk]
  }

  /** Forgets that `name` has files (they are about to be read, or are gone). */
  forget(name: string): void {
    this.#onDisk.delete(name)
    this.#unloaded.delete(name)
  }

  /** What an unloaded `name` kept in memory, taken as it is made live again. */
  takeUnloaded(name: string): Unloaded | undefined {
    const unloaded = this.#unloaded.get(name)
    this.#unloaded.delete(name)
    return unloaded
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

  /**
   * Opens the store of `name` once any removal or unload of it settles: from its files, or from
   * the frozen pets `frozen` when it has none. Files the disk refused to read are a 503 storage_unavailable, and
   * are read again at the next try (never served as no files).
   */
  async open(name: string, frozen: Parameters<Stores['open']>[2]): Promise<AnimalStore> {
    // A removal that failed left the name among those on disk: then the files are read.
    await this.#removing.get(name)?.catch(() => undefined)
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

  /** Removes the files of an evicted namespace; no one waits (the disk refusing leaves them to be read at its next use). */
  evict(namespace: Namespace): void {
    this.remove(namespace.name, () => namespace.store()).catch((error: unknown) =>
      this.#logger.warn(
        { namespace: namespace.name, err: error },
        'namespace evicted from memory, but the disk refused its removal: kept on disk, its next use reads it',
      ),
    )
  }

  /** Removes the files of a namespace gone from memory (`store` undefined: never opened); a use of its name meanwhile waits. */
  remove(name: string, store: () => AnimalStore | Promise<AnimalStore> | undefined): Promise<void> {
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
    if (removed) return this.forget(name)
    this.#onDisk.add(name)
    this.#logger.warn(
      { namespace: name },
      'namespace deleted (reset to its initial data), but the disk refused to remove its files: its next use reads them',
    )
  }

  /** The base of each name with unread files (but those `live`): its store opened to be looked at, not kept. */
  async peek(live: (name: string) => boolean): Promise<[string, Baseline | undefined][]> {
    const peeked: [string, Baseline | undefined][] = []
    for (const name of this.#onDisk) {
      if (live(name)) continue
      // An unloaded one's store counts against the bounds: not opened, its base was noted.
      await this.#removing.get(name)?.catch(() => undefined)
      const unloaded = this.#unloaded.get(name)
      if (unloaded !== undefined) {
        peeked.push([name, unloaded.base])
        continue
      }
      const store = await this.#stores.open(name).catch(() => undefined)
      await store?.retire()
      peeked.push([name, store?.base])
    }
    return peeked
  }

  /** Waits for the removals under way. */
  async settled(): Promise<void> {
    await Promise.all([...this.#removing.values()].map((removal) => removal.catch(() => undefined)))
  }
}
