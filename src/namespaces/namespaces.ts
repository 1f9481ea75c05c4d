// The namespaces of one sandbox, so that many tests share it without crosstalk. At most
// MAX_NAMESPACES are kept in memory; which one leaves to make room for a new one (evicted, or
// unloaded from its files), and when a new one is refused instead: namespace-room.ts. Where they
// are kept beyond memory is their backend's (namespace-backend.ts): this registry knows no other.
import type { Logger } from 'pino'
import { ERRORS, HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import { DEFAULT_NAMESPACE } from './namespace-choice.js'
import type { EntryOf, LiveNamespaces, NamespaceBackend, NamespaceHold } from './namespace-backend.js'
import { ownerOf, type QuotaRule } from './namespace-quota.js'
import { roomFor } from './namespace-room.js'
import { Namespace, UnknownSnapshot } from './namespace.js'
import { CoverageTally } from '../journal/coverage-tally.js'
import type { JournalMemory } from '../journal/journal-memory.js'
import type { Redactor } from '../journal/redactor.js'
import { Journal } from '../journal/request-journal.js'
import type { RequestRecord } from '../journal/request-record.js'
import { sameBaseline, type Baseline } from '../store/baseline.js'
import type { Snapshot, Snapshots } from '../store/snapshots.js'
import type { FrozenPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import type { Stores } from '../store/stores.js'

export { DEFAULT_NAMESPACE, NAMESPACE_HEADER, NAMESPACE_NAME, namespaceOf, namespaceOfKey } from './namespace-choice.js'
export { Namespace, UnknownSnapshot } from './namespace.js'
export type { EntryOf, NamespaceBackend, NamespaceHold } from './namespace-backend.js'

export interface NamespacesOptions {
  readonly stores: Stores
  /** The journals' bounds (JOURNAL_SIZE, JOURNAL_BYTES, JOURNAL_TOTAL_BYTES) and what they hold, and what their readers must never see. */
  readonly journals: JournalMemory
  readonly redactor: Redactor
  readonly maxNamespaces: number
  /** NAMESPACES_PER_KEY and the key family it counts as one; undefined, no quota (and no key's hash is taken). */
  readonly quota?: QuotaRule | undefined
  /** Where each eviction and unload is logged. */
  readonly logger: Pick<Logger, 'info' | 'warn'>
  readonly clock: Date | undefined
  /** Where namespaces are kept beyond memory, made with the registry's live namespaces. */
  readonly backend: (live: LiveNamespaces) => NamespaceBackend
}

export class Namespaces {
  readonly max: number
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
  readonly #backend: NamespaceBackend

  constructor(options: NamespacesOptions) {
    this.#options = options
    this.max = options.maxNamespaces
    const { stores } = options
    this.#backend = options.backend(this.#view())
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

  /** The namespace called `name` when it exists, live or kept; never created here (a misspelt name makes none). */
  existing(name: string, came?: number): Promise<Namespace | undefined> {
    return this.#backend.existing(name, came)
  }

  /**
   * Deletes a namespace, durably before this settles; false when there was none. A StorageError when
   * the disk or the database refused: nothing changed.
   */
  async delete(name: string, came?: number): Promise<boolean> {
    const deleted = await this.#backend.delete(name, came)
    if (deleted) this.deleted++
    return deleted
  }

  /**
   * The namespace called `name`, created on first use (from the snapshot `baseline` when it has no
   * files: a 503 baseline_missing while there is no such snapshot), counted against the API key
   * `key` of the request that made it; a 503 namespace_limit past that key's quota, or past
   * MAX_NAMESPACES when no namespace can make room for it.
   */
  get(name: string, baseline?: string, key?: string): Namespace {
    const found = this.#live.get(name)
    if (found) {
      if (this.#mostRecent !== name) {
        this.#live.delete(name)
        this.#live.set(name, found)
        this.#mostRecent = name
      }
      return found
    }
    const fromDisk = this.#backend.stored(name)
    // Looked up before any eviction: a refused request makes no room. Its pets are frozen pets, not copies.
    const snapshot = baseline === undefined || fromDisk ? undefined : this.snapshots.get(baseline)
    if (baseline !== undefined && !fromDisk && snapshot === undefined)
      throw new HttpError(
        ERRORS.baselineMissing,
        `No snapshot ${JSON.stringify(baseline)} for namespace ${JSON.stringify(name)} to start from (TRACE_NAMESPACE_BASELINE): make it (POST /__admin/snapshots), then try again`,
      )
    const owner = fromDisk ? undefined : ownerOf(key, this.#options.quota)
    const claimed = owner !== undefined && this.#backend.claim?.(name, owner) === true
    try {
      if (this.#live.size >= this.max) this.#makeRoomFor(name)
    } catch (error) {
      if (claimed) this.#backend.giveBack?.(name)
      throw error
    }
    const namespace = this.#make(name, snapshot, fromDisk)
    this.#live.set(name, namespace)
    this.#mostRecent = name
    return namespace
  }

  #make(name: string, snapshot: Snapshot | undefined, fromDisk = false): Namespace {
    const unloaded = fromDisk ? this.#backend.takeUnloaded(name) : undefined
    const baseline = unloaded?.baseline ?? snapshot?.pets.source ?? this.#options.stores.source
    const opener = this.#opener(name, snapshot?.pets)
    const namespace = new Namespace(name, this.#journal(), this.#options.clock, opener, baseline, { fromDisk })
    const offset = unloaded === undefined ? snapshot?.clock : unloaded.clockOffset
    if (typeof offset === 'string') namespace.clock.startAt(new Date(offset))
    else if (offset !== undefined) namespace.clock.startAt(offset === null ? null : new Date(Date.now() + offset))
    return namespace
  }

  /**
   * The namespace held for one request, up to date with its backend; undefined: memory here is its
   * truth. A backend that counts namespaces as its hold makes them is told the request's key's owner.
   */
  hold(namespace: Namespace, key?: string, came?: number): Promise<NamespaceHold> | undefined {
    const counted = this.#backend.claim === undefined && namespace.name !== DEFAULT_NAMESPACE
    return this.#backend.hold(namespace, counted ? ownerOf(key, this.#options.quota) : undefined, came)
  }

  /** Hands a request to the process that serves its namespace, when another does (see NamespaceBackend). */
  forward(name: string, exchange: Exchange): Promise<boolean> | undefined {
    return this.#backend.forward?.(name, exchange)
  }

  /** Journals the entry of a request answered with no hold of its own. */
  record(namespace: Namespace, entry: EntryOf): Promise<void> | undefined {
    return this.#backend.record(namespace, entry)
  }

  /** Keeps the entry of a request whose change could not be committed, for its namespace's journal. */
  later(namespace: Namespace, entry: RequestRecord): void {
    this.#backend.later(namespace, entry)
  }

  /** Every namespace, least recently used first; those kept elsewhere too, brought up to date. */
  all(): Promise<Namespace[]> {
    return this.#backend.all()
  }

  #journal(): Journal {
    const { journals, redactor } = this.#options
    // A backend that keeps a journal's counts when it leaves memory: none are retired here.
    const retired = this.#backend.keepsCounts ? undefined : this.retired
    return new Journal(journals.limits.requests, redactor, retired, journals)
  }

  /** Least recently used first. */
  list(): Namespace[] {
    return [...this.#live.values()]
  }

  /**
   * Puts a namespace back to the data of the baseline `source` (its initial data by default),
   * clearing its journal, faults and clock; `came` as existing()'s.
   */
  async reset(namespace: Namespace, source: Baseline = this.#options.stores.source, came?: number): Promise<number> {
    const store = await namespace.store()
    if (source.kind === 'snapshot') await this.snapshots.refresh(came)
    // Looked up after the wait for the store, where a deletion that began meanwhile hides it.
    const snapshot = source.kind === 'snapshot' ? this.snapshots.get(source.name) : undefined
    if (source.kind === 'snapshot' && snapshot === undefined) throw new UnknownSnapshot(source.name)
    const pets = snapshot?.pets ?? (await this.#options.stores.frozenPets(source))
    // A data file of the user's own (no source) is given the initial data whole: it stands on its own.
    if (store.source === undefined && sameBaseline(source, this.#options.stores.source))
      await store.replace({ pets: [...pets.pets] })
    else await store.fork(pets)
    namespace.journal.clear()
    namespace.faults.clear()
    if (snapshot === undefined) namespace.clock.toStart()
    else if (snapshot.clock === null) namespace.clock.toRealTime()
    else namespace.clock.set(new Date(snapshot.clock))
    return store.size
  }

  /** The namespaces that start from each baseline (by baselineKey). */
  forks(came?: number): Promise<Map<string, string[]>> {
    return this.#backend.forks(came)
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
    await this.#backend.settled()
  }

  /** Opens the store on first use, from `baseline` when it has no files; a failed open is tried again. */
  #opener(name: string, frozen?: FrozenPets): () => Promise<AnimalStore> {
    let opening: Promise<AnimalStore> | undefined
    return () => {
      opening ??= this.#backend.open(name, frozen).catch((error: unknown) => {
        opening = undefined
        throw error
      })
      return opening
    }
  }

  /** Evicts or unloads a namespace to make room for `name` (roomFor), or refuses it. */
  #makeRoomFor(name: string): void {
    const { logger } = this.#options
    const room = roomFor(name, this.#live.values(), { max: this.max, keeps: this.#backend.keeps })
    if (room.unload === undefined) {
      this.#evict(room.evict)
      return logger.info(
        { namespace: room.evict.name, for: name, max: this.max },
        'namespace evicted: it held nothing a test gave it, and MAX_NAMESPACES were kept',
      )
    }
    this.#drop(room.unload)
    this.#backend.unload(room.unload)
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
    this.#backend.evict(namespace)
  }

  /** What the backend sees of the live namespaces. */
  #view(): LiveNamespaces {
    return {
      find: (name) => this.find(name),
      get: (name) => this.get(name),
      fresh: (name) => this.#make(name, undefined),
      drop: (namespace) => this.#drop(namespace),
      take: (name) => {
        this.#live.delete(name)
        if (this.#mostRecent === name) this.#mostRecent = undefined
      },
      restore: (namespace) => {
        if (this.#live.has(namespace.name)) return false
        this.#live.set(namespace.name, namespace)
        this.#mostRecent = namespace.name
        return true
      },
      list: () => this.list(),
    }
  }
}
