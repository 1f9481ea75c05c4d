// The files of namespaces beside DATA_FILE, as the registry needs to know them: which names have
// files not yet read, and the removals under way (a name used again waits for its removal).
import type { Logger } from 'pino'
import { NAMESPACE_NAME } from './namespace-choice.js'
import type { AnimalStore } from '../store/store.js'
import type { Stores } from '../store/stores.js'

export class NamespaceFiles {
  readonly #stores: Stores
  readonly #logger: Pick<Logger, 'warn'>
  /** The names not live whose files are on disk: any other's first use reads nothing. */
  readonly #onDisk: Set<string>
  /** Deletions and evictions still removing their files. */
  readonly #removing = new Map<string, Promise<void>>()

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
  }

  /** Opens the store of `name` once any removal of it settles: from its files, or from `baseline` when it has none. */
  async open(name: string, baseline: Parameters<Stores['open']>[2]): Promise<AnimalStore> {
    // A removal that failed left the name among those on disk: then the files are read.
    await this.#removing.get(name)?.catch(() => undefined)
    return this.#stores.open(name, !this.#onDisk.delete(name), baseline)
  }

  /** Removes the files of a namespace gone from memory (`store` undefined: never opened); a use of its name meanwhile waits. */
  remove(name: string, store: () => AnimalStore | Promise<AnimalStore> | undefined): Promise<void> {
    const removal = this.#removeFiles(name, store).finally(() => {
      if (this.#removing.get(name) === removal) this.#removing.delete(name)
    })
    this.#removing.set(name, removal)
    return removal
  }

  /** Once its writes settle: a refused deletion leaves its files whole; a refused removal, the initial data. */
  async #removeFiles(name: string, opened: () => AnimalStore | Promise<AnimalStore> | undefined): Promise<void> {
    const stores = this.#stores
    const store = await Promise.resolve(opened() ?? stores.open(name)).catch(() => undefined)
    // Unless they go, its files are read at its next use.
    const removed = await stores.remove(name, store).catch((error: unknown) => {
      this.#onDisk.add(name)
      throw error
    })
    if (removed) return void this.#onDisk.delete(name)
    this.#onDisk.add(name)
    this.#logger.warn(
      { namespace: name },
      'namespace deleted (reset to its initial data), but the disk refused to remove its files: its next use reads them',
    )
  }

  /** The stores of the names with unread files (but those `live`), opened to be looked at, not kept. */
  async peek(live: (name: string) => boolean): Promise<[string, AnimalStore | undefined][]> {
    const peeked: [string, AnimalStore | undefined][] = []
    for (const name of this.#onDisk) {
      if (live(name)) continue
      const store = await this.#stores.open(name).catch(() => undefined)
      await store?.retire()
      peeked.push([name, store])
    }
    return peeked
  }

  /** Waits for the removals under way. */
  async settled(): Promise<void> {
    await Promise.all([...this.#removing.values()].map((removal) => removal.catch(() => undefined)))
  }
}
