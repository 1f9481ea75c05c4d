// Namespaces let one sandbox serve many tests at once without crosstalk. Each has its own store
// (from the same initial data, persisted in its own file next to DATA_FILE), journal, faults and
// clock. A request picks one by the X-Sandbox-Namespace header or, in the key mode
// (NAMESPACE_KEY_PREFIX), by its API key; otherwise it uses the default namespace. At most
// MAX_NAMESPACES are kept: a new one evicts the least recently used (never the default), whose
// data file is deleted, so it comes back from the initial data if it is used again.
import { existsSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { basename, dirname, extname, join } from 'node:path'
import { bearerToken } from '../pipeline/auth.js'
import { Clock } from './clock.js'
import { Faults } from './faults.js'
import { Journal, type Redactor } from './request-journal.js'
import { removeDataFile } from '../store/durable-io.js'
import type { AnimalStore, Pet } from '../store/store.js'

export const DEFAULT_NAMESPACE = 'default'
export const NAMESPACE_HEADER = 'x-sandbox-namespace'
/** Also a safe file-name part: no slash, no leading dot. */
export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

export class Namespace {
  readonly name: string
  readonly journal: Journal
  readonly faults = new Faults()
  readonly clock: Clock
  readonly #store: () => Promise<AnimalStore>
  #opened: AnimalStore | undefined

  constructor(
    name: string,
    journal: Journal,
    clock: Date | undefined,
    store: () => Promise<AnimalStore>,
    opened?: AnimalStore,
  ) {
    this.name = name
    this.journal = journal
    this.clock = new Clock(clock)
    this.#store = store
    this.#opened = opened
  }

  /** Waits for the writes of its store, when it was ever opened. */
  async flushIfOpen(): Promise<void> {
    await this.#opened?.flush()
  }

  /** The store itself once it is open: a request then need not wait a turn for it. */
  store(): AnimalStore | Promise<AnimalStore> {
    return (
      this.#opened ??
      this.#store().then((store) => {
        this.#opened = store
        return store
      })
    )
  }
}

export interface NamespacesOptions {
  readonly defaultStore: AnimalStore
  /** Opens (or creates from the initial data) the store kept in `dataFile`; undefined: in memory. */
  readonly openStore: (dataFile: string | undefined) => Promise<AnimalStore>
  readonly dataFile: string | undefined
  readonly journalSize: number
  /** What the journals' readers must never see (keys, tokens). */
  readonly redactor: Redactor
  readonly maxNamespaces: number
  readonly clock: Date | undefined
  /** The data every namespace starts from, and a reset returns to. */
  readonly initialPets: () => Promise<Pet[]>
}

export class Namespaces {
  readonly max: number
  readonly #options: NamespacesOptions
  /** In least-recently-used order: a use moves a namespace to the end. */
  readonly #live = new Map<string, Namespace>()
  /** The last one in #live, which a use need not move. */
  #mostRecent: string | undefined
  /** Evictions still deleting their data file: a namespace coming back waits for it. */
  readonly #evicting = new Map<string, Promise<void>>()

  constructor(options: NamespacesOptions) {
    this.#options = options
    this.max = options.maxNamespaces
    const store = options.defaultStore
    this.#live.set(
      DEFAULT_NAMESPACE,
      new Namespace(
        DEFAULT_NAMESPACE,
        new Journal(options.journalSize, options.redactor),
        options.clock,
        () => Promise.resolve(store),
        store,
      ),
    )
  }

  /** The default namespace's store, open from the start. */
  get defaultStore(): AnimalStore {
    return this.#options.defaultStore
  }

  get default(): Namespace {
    return this.#live.get(DEFAULT_NAMESPACE) as Namespace
  }

  /** The namespace called `name` if it exists, without creating it. */
  find(name: string): Namespace | undefined {
    return this.#live.get(name)
  }

  /**
   * The namespace called `name` when it exists, live or kept on disk from before a restart; never
   * created here, so that reading a misspelt name cannot make one.
   */
  existing(name: string): Namespace | undefined {
    if (this.#live.has(name)) return this.get(name)
    const file = this.dataFileOf(name)
    return file !== undefined && existsSync(file) ? this.get(name) : undefined
  }

  /**
   * Deletes a namespace: gone from memory, its data file removed before this settles (a restart
   * does not bring it back). False when there was no such namespace.
   */
  async delete(name: string): Promise<boolean> {
    const namespace = this.#live.get(name)
    const file = this.dataFileOf(name)
    if (namespace === undefined && !(file !== undefined && existsSync(file))) return false
    this.#live.delete(name)
    if (this.#mostRecent === name) this.#mostRecent = undefined
    await this.#evicting.get(name)
    if (file !== undefined) {
      // Writes under way finish first, so that none lands after the removal.
      await namespace?.flushIfOpen()
      await removeDataFile(file)
    }
    return true
  }

  /** The namespace called `name`, created on first use. */
  get(name: string): Namespace {
    const found = this.#live.get(name)
    if (found) {
      if (this.#mostRecent !== name) {
        this.#live.delete(name)
        this.#live.set(name, found)
        this.#mostRecent = name
      }
      return found
    }
    const namespace = new Namespace(
      name,
      new Journal(this.#options.journalSize, this.#options.redactor),
      this.#options.clock,
      this.#opener(name),
    )
    this.#live.set(name, namespace)
    this.#mostRecent = name
    while (this.#live.size > this.max) this.#evictOldest()
    return namespace
  }

  /** Least recently used first. */
  list(): Namespace[] {
    return [...this.#live.values()]
  }

  /** Puts a namespace back to its initial data (or to `pets`) and clears its journal, faults and clock. */
  async reset(namespace: Namespace, pets?: Pet[]): Promise<number> {
    const store = await namespace.store()
    await this.replace(store, pets ?? (await this.#options.initialPets()))
    namespace.journal.clear()
    namespace.faults.clear()
    namespace.clock.reset()
    return store.size
  }

  /** Replaces the pets, keeping the store's origin so that a restart keeps them too. */
  async replace(store: AnimalStore, pets: Pet[]): Promise<void> {
    await store.replace({ ...(store.origin === undefined ? {} : { origin: store.origin }), pets })
  }

  /** Waits for every namespace's writes. */
  async flush(): Promise<void> {
    await Promise.all([...this.#live.values()].map(async (namespace) => (await namespace.store()).flush()))
    await Promise.all(this.#evicting.values())
  }

  dataFileOf(name: string): string | undefined {
    const file = this.#options.dataFile
    if (file === undefined) return undefined
    if (name === DEFAULT_NAMESPACE) return file
    const extension = extname(file)
    return join(dirname(file), `${basename(file, extension)}.ns.${name}${extension || '.json'}`)
  }

  /** Opens the store on first use; a failed open is tried again by the next request. */
  #opener(name: string): () => Promise<AnimalStore> {
    let opening: Promise<AnimalStore> | undefined
    return () => {
      opening ??= (async () => {
        await this.#evicting.get(name)
        return this.#options.openStore(this.dataFileOf(name))
      })().catch((error: unknown) => {
        opening = undefined
        throw error
      })
      return opening
    }
  }

  #evictOldest(): void {
    const oldest = [...this.#live.keys()].find((name) => name !== DEFAULT_NAMESPACE)
    if (oldest === undefined) return
    const namespace = this.#live.get(oldest) as Namespace
    this.#live.delete(oldest)
    if (this.#mostRecent === oldest) this.#mostRecent = undefined
    const file = this.dataFileOf(oldest)
    const evicted = (async () => {
      try {
        await (await namespace.store()).flush()
      } catch {
        // A store that never opened has nothing to flush.
      }
      if (file !== undefined) await removeDataFile(file)
    })().finally(() => {
      if (this.#evicting.get(oldest) === evicted) this.#evicting.delete(oldest)
    })
    this.#evicting.set(oldest, evicted)
  }
}

/** Which namespace a request asks for: its name, or the problem with what it sent. */
export function namespaceOf(
  req: IncomingMessage,
  keyPrefix: string | undefined,
): { name: string; problem?: undefined } | { name?: undefined; problem: string } {
  const header = req.headers[NAMESPACE_HEADER]
  const fromHeader = header === undefined ? undefined : String(header)
  if (fromHeader !== undefined && !NAMESPACE_NAME.test(fromHeader)) {
    return {
      problem: `X-Sandbox-Namespace must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got ${JSON.stringify(fromHeader.slice(0, 80))}`,
    }
  }
  const fromKey = keyPrefix === undefined ? undefined : namespaceOfKey(bearerToken(req), keyPrefix)
  if (fromHeader !== undefined && fromKey !== undefined && fromHeader !== fromKey) {
    return {
      problem: `X-Sandbox-Namespace (${fromHeader}) and the API key (namespace ${fromKey}) choose different namespaces: send one of them`,
    }
  }
  const name = fromHeader ?? fromKey
  return name === undefined ? DEFAULT_CHOICE : { name }
}

// What nearly every request asks for: one object for all of them.
const DEFAULT_CHOICE = Object.freeze({ name: DEFAULT_NAMESPACE })

/** In the key mode, the namespace a key selects: the part after the prefix. */
export function namespaceOfKey(token: string | undefined, keyPrefix: string): string | undefined {
  if (token === undefined || !token.startsWith(keyPrefix)) return undefined
  const name = token.slice(keyPrefix.length)
  return NAMESPACE_NAME.test(name) ? name : undefined
}
