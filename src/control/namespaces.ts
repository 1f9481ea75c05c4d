// The namespaces of one sandbox, so that many tests share it without crosstalk. At most
// MAX_NAMESPACES are kept in memory; which one leaves to make room for a new one (evicted, or
// unloaded from its files), and when a new one is refused instead: namespace-room.ts.
import type { Logger } from 'pino'
import { ERRORS, HttpError } from '../http/errors.js'
import { DEFAULT_NAMESPACE } from './namespace-choice.js'
import { NamespaceFiles } from './namespace-files.js'
import { roomFor } from './namespace-room.js'
import { Namespace, UnknownSnapshot, type NamespaceHold, type SharedNamespaces } from './namespace.js'
import { CoverageTally } from './coverage-tally.js'
import type { JournalMemory } from './journal-memory.js'
import type { Redactor } from './redactor.js'
import { Journal } from './request-journal.js'
import { sameSource, sourceKey, type DataSource } from '../store/data-source.js'
import type { Snapshot, Snapshots } from '../store/snapshots.js'
import type { SharedPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import type { Stores } from '../store/stores.js'

export { DEFAULT_NAMESPACE, NAMESPACE_HEADER, NAMESPACE_NAME, namespaceOf, namespaceOfKey } from './namespace-choice.js'
export { Namespace, UnknownSnapshot, type NamespaceHold, type SharedNamespaces } from './namespace.js'

export interface NamespacesOptions {
  readonly stores: Stores
  /** The journals' bounds (JOURNAL_SIZE, JOURNAL_BYTES, JOURNAL_TOTAL_BYTES) and what they hold, and what their readers must never see. */
  readonly journals: JournalMemory
  readonly redactor: Redactor
  readonly maxNamespaces: number
  /** Where each eviction is logged, and a removal of files that the disk refused. */
  readonly logger: Pick<Logger, 'info' | 'warn'>
  readonly clock: Date | undefined
  /** Set when replicas share every namespace through a database (DATABASE_URL). */
  readonly sharing?: SharedNamespaces | undefined
}

export class Namespaces {
  readonly max: number
  /** Whether replicas share the namespaces through a database (DATABASE_URL). */
  readonly shared: boolean
  /** The counts of calls whose namespace was deleted, evicted, reset or cleared: still in the coverage report. */
  readonly retired = new CoverageTally()
  /** Deleted and evicted since the start, for the coverage report. */
  deleted = 0
  evicted = 0
  readonly #options: NamespacesOptions
  /** In least-recently-used order: a use moves a namespace to the end. */
  readonly #live = new Map<string, Namespace>()
  /** The last one in #live, which a use need not move. */
  #mostRecent: string | undefined
  readonly #files: NamespaceFiles

  constructor(options: NamespacesOptions) {
    this.#options = options
    this.max = options.maxNamespaces
    this.shared = options.sharing !== undefined
    const { stores } = options
    this.#files = new NamespaceFiles(stores, options.logger)
    const store = stores.default
    const opened = { opened: store }
    this.#live.set(
      DEFAULT_NAMESPACE,
      new Namespace(DEFAULT_NAMESPACE, this.#journal(), options.clock, async () => store, stores.source, opened),
    )
  }

  /** The journals' bounds and what they hold together. */
  get journals(): JournalMemory {
    return this.#options.journals
  }

  get snapshots(): Snapshots {
    return this.#options.stores.snapshots
  }

  get default(): Namespace {
    return this.#live.get(DEFAULT_NAMESPACE) as Namespace
  }

  /** The namespace called `name` if it exists, without creating it. */
  find(name: string): Namespace | undefined {
    return this.#live.get(name)
  }

  /** The namespace called `name` when it exists, live or on disk; never created here (a misspelt name makes none). */
  async existing(name: string): Promise<Namespace | undefined> {
    const { sharing } = this.#options
    if (sharing !== undefined) {
      if (await sharing.exists(name)) return this.get(name)
      const stale = this.#live.get(name)
      if (stale !== undefined) this.#drop(stale)
      return undefined
    }
    if (this.#live.has(name)) return this.get(name)
    if (!this.#files.has(name)) return undefined
    const namespace = this.get(name)
    namespace.begin() // not evicted or unloaded while its files are read
    const store = await Promise.resolve(namespace.store()).finally(() => namespace.end())
    // Files that hold only the initial data are what a deletion a crash cut short leaves: gone.
    if (namespace.busy || !store.holdsOnly(this.#options.stores.source) || this.#live.get(name) !== namespace)
      return namespace
    this.#drop(namespace)
    await this.#files.remove(name, () => namespace.store()).catch(() => undefined)
    return undefined
  }

  /**
   * Deletes a namespace, durably before this settles; false when there was none. A StorageError when
   * the disk refused: nothing changed, and it is back as it was (or made anew, reading its files).
   */
  async delete(name: string): Promise<boolean> {
    const namespace = this.#live.get(name)
    if (this.#options.sharing !== undefined) {
      if (namespace !== undefined) this.#drop(namespace)
      const deleted = await this.#options.sharing.delete(name)
      if (deleted) this.deleted++
      return deleted
    }
    if (namespace === undefined && !this.#files.has(name)) return false
    this.#live.delete(name)
    try {
      await this.#files.remove(name, () => namespace?.store())
    } catch (error) {
      if (namespace !== undefined && !this.#live.has(name)) {
        this.#files.forget(name)
        // Back even past MAX_NAMESPACES (a new name may have taken its room meanwhile): it holds data.
        this.#live.set(name, namespace)
        this.#mostRecent = name
        await Promise.resolve(namespace.store()).then(
          (store) => store.reinstate(),
          () => undefined,
        )
      }
      throw error
    }
    if (namespace) this.#drop(namespace)
    this.deleted++
    return true
  }

  /**
   * The namespace called `name`, created on first use (from the snapshot `baseline` when it has no
   * files: a 503 baseline_missing while there is no such snapshot); past MAX_NAMESPACES, a 503
   * namespace_limit when no namespace can make room for it.
   */
  get(name: string, baseline?: string): Namespace {
    const found = this.#live.get(name)
    if (found) {
      if (this.#mostRecent !== name) {
        this.#live.delete(name)
        this.#live.set(name, found)
        this.#mostRecent = name
      }
      return found
    }
    const fromDisk = this.#files.has(name)
    // Looked up before any eviction: a refused request makes no room. Its pets are shared, not copied.
    const snapshot = baseline === undefined || fromDisk ? undefined : this.snapshots.get(baseline)
    if (baseline !== undefined && !fromDisk && snapshot === undefined)
      throw new HttpError(
        ERRORS.baselineMissing,
        `No snapshot ${JSON.stringify(baseline)} for namespace ${JSON.stringify(name)} to start from (TRACE_NAMESPACE_BASELINE): make it (POST /__admin/snapshots), then try again`,
      )
    if (this.#live.size >= this.max) this.#makeRoomFor(name)
    const namespace = this.#make(name, snapshot, fromDisk)
    this.#live.set(name, namespace)
    this.#mostRecent = name
    return namespace
  }

  #make(name: string, snapshot: Snapshot | undefined, fromDisk = false): Namespace {
    const unloaded = fromDisk ? this.#files.takeUnloaded(name) : undefined
    const baseline = unloaded?.baseline ?? snapshot?.pets.source ?? this.#options.stores.source
    const opener = this.#opener(name, snapshot?.pets)
    const namespace = new Namespace(name, this.#journal(), this.#options.clock, opener, baseline, { fromDisk })
    const offset = unloaded === undefined ? snapshot?.clock : unloaded.clockOffset
    if (typeof offset === 'string') namespace.clock.startAt(new Date(offset))
    else if (offset !== undefined) namespace.clock.startAt(offset === null ? null : new Date(Date.now() + offset))
    return namespace
  }

  /** With a shared database: the namespace locked and brought up to date for one request. */
  hold(namespace: Namespace): Promise<NamespaceHold> | undefined {
    return this.#options.sharing?.hold(namespace, () => this.#make(namespace.name, undefined))
  }

  /** Every namespace, least recently used first; with a shared database, every one in it, brought up to date. */
  async all(): Promise<Namespace[]> {
    const names = await this.#options.sharing?.names()
    if (names === undefined) return this.list()
    for (const name of names) await (await this.hold(this.get(name)))?.release()
    return names.map((name) => this.get(name))
  }

  #journal(): Journal {
    const { journals, redactor } = this.#options
    // With a shared database a journal's counts stay in it when it leaves memory: none are retired here.
    const retired = this.#options.sharing === undefined ? this.retired : undefined
    return new Journal(journals.limits.requests, redactor, retired, journals)
  }

  /** Least recently used first. */
  list(): Namespace[] {
    return [...this.#live.values()]
  }

  /** Puts a namespace back to the data of `source` (its initial data by default), clearing its journal, faults and clock. */
  async reset(namespace: Namespace, source: DataSource = this.#options.stores.source): Promise<number> {
    const store = await namespace.store()
    if (source.kind === 'snapshot') await this.snapshots.refresh()
    // Looked up after the wait for the store, where a deletion that began meanwhile hides it.
    const snapshot = source.kind === 'snapshot' ? this.snapshots.get(source.name) : undefined
    if (source.kind === 'snapshot' && snapshot === undefined) throw new UnknownSnapshot(source.name)
    const shared = snapshot?.pets ?? (await this.#options.stores.sharedPets(source))
    // A data file of the user's own (no source) is given the initial data whole: it stands on its own.
    if (store.source === undefined && sameSource(source, this.#options.stores.source))
      await store.replace({ pets: [...shared.pets] })
    else await store.fork(shared)
    namespace.journal.clear()
    namespace.faults.clear()
    if (snapshot === undefined) namespace.clock.toStart()
    else if (snapshot.clock === null) namespace.clock.toRealTime()
    else namespace.clock.set(new Date(snapshot.clock))
    return store.size
  }

  /** The namespaces that start from each source (by sourceKey): those on disk are opened to see, not made live. */
  async forks(): Promise<Map<string, string[]>> {
    if (this.#options.sharing !== undefined) return this.#options.sharing.forks()
    const forks = new Map<string, string[]>()
    const note = (name: string, base: DataSource | undefined): void => {
      if (base === undefined) return
      const key = sourceKey(base)
      forks.set(key, [...(forks.get(key) ?? []), name])
    }
    for (const namespace of [...this.#live.values()])
      note(namespace.name, (await Promise.resolve(namespace.store()).catch(() => undefined))?.base)
    for (const [name, base] of await this.#files.peek((name) => this.#live.has(name))) note(name, base)
    return forks
  }

  /** Waits for every namespace's writes (one whose files the disk refused to read has none). */
  async flush(): Promise<void> {
    const flushed = [...this.#live.values()].map((namespace) =>
      Promise.resolve(namespace.store()).then(
        (store) => store.flush(),
        () => undefined,
      ),
    )
    await Promise.all(flushed)
    await this.#files.settled()
  }

  /** Opens the store on first use, from `baseline` when it has no files; a failed open is tried again. */
  #opener(name: string, baseline?: SharedPets): () => Promise<AnimalStore> {
    let opening: Promise<AnimalStore> | undefined
    return () => {
      opening ??= this.#files.open(name, baseline).catch((error: unknown) => {
        opening = undefined
        throw error
      })
      return opening
    }
  }

  /** Evicts or unloads a namespace to make room for `name` (roomFor), or refuses it. */
  #makeRoomFor(name: string): void {
    const { sharing, stores, logger } = this.#options
    const room = roomFor(name, this.#live.values(), {
      max: this.max,
      shared: sharing !== undefined,
      persistent: stores.persistent,
    })
    if (room.unload === undefined) {
      this.#evict(room.evict)
      return logger.info(
        { namespace: room.evict.name, for: name, max: this.max },
        'namespace evicted: it held nothing a test gave it, and MAX_NAMESPACES were kept',
      )
    }
    this.#drop(room.unload)
    this.#files.unload(room.unload)
    logger.info(
      { namespace: room.unload.name, for: name, max: this.max },
      'namespace unloaded: MAX_NAMESPACES were kept, each holding data; its files stay, and its next use reads them',
    )
  }

  /** Gone from memory: its journal's counts go to the run's, its bytes back to the bound all journals share. */
  #drop(namespace: Namespace): void {
    if (this.#live.get(namespace.name) === namespace) this.#live.delete(namespace.name)
    if (this.#mostRecent === namespace.name) this.#mostRecent = undefined
    namespace.journal.close()
  }

  #evict(namespace: Namespace): void {
    this.#drop(namespace)
    this.evicted++
    this.#files.evict(namespace)
  }
}
