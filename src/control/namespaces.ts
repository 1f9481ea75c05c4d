// Namespaces let one sandbox serve many tests at once without crosstalk: each has its own store
// (written only once it changes), journal, faults and clock. A request picks one by the
// X-Sandbox-Namespace header, its API key (NAMESPACE_KEY_PREFIX) or the W3C Baggage member
// sandbox.namespace; else the default one, or with NAMESPACE_FROM_TRACE the one named after its
// trace id. At most MAX_NAMESPACES are kept: a new one evicts the least recently used that holds
// nothing a test gave it (never the default), which comes back from its baseline (the initial
// data, or TRACE_NAMESPACE_BASELINE's snapshot) if used again; when all hold something, the new
// one is refused, so an eviction never loses what was acknowledged.
import type { IncomingMessage } from 'node:http'
import type { Logger } from 'pino'
import { baggageValues } from '../http/baggage.js'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { traceIdOf } from '../http/trace-context.js'
import { bearerToken } from '../pipeline/auth.js'
import { Clock } from './clock.js'
import { CoverageTally } from './coverage-tally.js'
import { Faults } from './faults.js'
import type { JournalMemory } from './journal-memory.js'
import type { Redactor } from './redactor.js'
import { Journal } from './request-journal.js'
import { parseSnapshotOrigin } from '../store/origin.js'
import type { Snapshots } from '../store/snapshots.js'
import type { AnimalStore, Pet, SharedPets } from '../store/store.js'
import type { Stores } from '../store/stores.js'

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
  /** Its files were on disk when it was made live. */
  readonly #fromDisk: boolean
  /** Requests being served in it: a create among them may not have reached its store yet. */
  #serving = 0
  /** The origin of the data it starts from, and comes back from after an eviction. */
  readonly #baseline: string

  constructor(
    name: string,
    journal: Journal,
    clock: Date | undefined,
    store: () => Promise<AnimalStore>,
    baseline: string,
    { opened, fromDisk = false }: { opened?: AnimalStore; fromDisk?: boolean } = {},
  ) {
    this.name = name
    this.journal = journal
    this.clock = new Clock(clock)
    this.#store = store
    this.#opened = opened
    this.#fromDisk = fromDisk
    this.#baseline = baseline
  }

  /** A request is being served in it: it is not evicted meanwhile. Each call is paired with end(). */
  begin(): void {
    this.#serving++
  }

  end(): void {
    this.#serving--
  }

  get busy(): boolean {
    return this.#serving > 0
  }

  /**
   * Whether it holds something a test gave it, which an eviction would lose: pets other than its
   * baseline's, a fault, a moved clock (not its journal). One not open yet: whatever is on disk.
   */
  holdsData(): boolean {
    if (this.faults.length > 0 || this.clock.moved) return true
    return this.#opened === undefined ? this.#fromDisk : !this.#opened.holdsOnly(this.#baseline)
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
  readonly stores: Stores
  /** The journals' bounds (JOURNAL_SIZE, JOURNAL_BYTES, JOURNAL_TOTAL_BYTES) and what they hold. */
  readonly journals: JournalMemory
  /** What the journals' readers must never see (keys, tokens). */
  readonly redactor: Redactor
  readonly maxNamespaces: number
  /** Where each eviction is logged, and a removal of files that the disk refused. */
  readonly logger: Pick<Logger, 'info' | 'warn'>
  readonly clock: Date | undefined
}

/** A reset named a snapshot that does not exist (or is being deleted). */
export class UnknownSnapshot extends Error {
  readonly snapshot: string
  constructor(snapshot: string) {
    super(`No snapshot ${JSON.stringify(snapshot)}`)
    this.snapshot = snapshot
  }
}

export class Namespaces {
  readonly max: number
  /**
   * The counts of the calls whose namespace was deleted, evicted, reset or its journal cleared: the
   * report of every namespace adds them, so a suite's calls stay counted whatever it removes.
   */
  readonly retired = new CoverageTally()
  /** Namespaces deleted and evicted since the start, for the coverage report. */
  deleted = 0
  evicted = 0
  readonly #options: NamespacesOptions
  /** In least-recently-used order: a use moves a namespace to the end. */
  readonly #live = new Map<string, Namespace>()
  /** The last one in #live, which a use need not move. */
  #mostRecent: string | undefined
  /** Deletions and evictions still removing their files: a namespace coming back waits for it. */
  readonly #removing = new Map<string, Promise<void>>()
  /**
   * The namespaces not live whose files are on disk. Every other one has none (one made since is
   * live until its files are removed), so its first use reads nothing.
   */
  readonly #onDisk: Set<string>

  constructor(options: NamespacesOptions) {
    this.#options = options
    this.max = options.maxNamespaces
    const { stores } = options
    this.#onDisk = new Set([...stores.namespacesOnDisk].filter((name) => NAMESPACE_NAME.test(name)))
    const store = stores.default
    const namespace = new Namespace(
      DEFAULT_NAMESPACE,
      this.#journal(),
      options.clock,
      async () => store,
      stores.origin,
      {
        opened: store,
      },
    )
    this.#live.set(DEFAULT_NAMESPACE, namespace)
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

  /**
   * The namespace called `name` when it exists, live or kept on disk from before a restart; never
   * created here, so that reading a misspelt name cannot make one.
   */
  existing(name: string): Namespace | undefined {
    return this.#live.has(name) || this.#onDisk.has(name) ? this.get(name) : undefined
  }

  /**
   * Deletes a namespace: gone from memory, and durably from disk before this settles (a restart
   * does not bring it back). False when there was no such namespace. A StorageError when the disk
   * refused the deletion: then nothing changed, and the namespace is back as it was (unless a
   * request made it anew meanwhile: that one reads its files, which hold all it had).
   */
  async delete(name: string): Promise<boolean> {
    const namespace = this.#live.get(name)
    if (namespace === undefined && !this.#onDisk.has(name)) return false
    this.#live.delete(name)
    if (this.#mostRecent === name) this.#mostRecent = undefined
    try {
      await this.#remove(name, namespace)
    } catch (error) {
      if (namespace !== undefined && !this.#live.has(name)) {
        this.#onDisk.delete(name)
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
    // Its counts go to the run's, its bytes back to the bound all journals share.
    namespace?.journal.close()
    this.deleted++
    return true
  }

  /** Removes the files of a namespace gone from memory; a use of its name meanwhile waits for that. */
  #remove(name: string, namespace: Namespace | undefined): Promise<void> {
    const removal = this.#removeFiles(name, namespace).finally(() => {
      if (this.#removing.get(name) === removal) this.#removing.delete(name)
    })
    this.#removing.set(name, removal)
    return removal
  }

  /** Once its writes settle: a refused deletion leaves its files whole; a refused removal, the initial data. */
  async #removeFiles(name: string, namespace: Namespace | undefined): Promise<void> {
    const { stores } = this.#options
    const store = await Promise.resolve(namespace ? namespace.store() : stores.open(name)).catch(() => undefined)
    let removed: boolean
    try {
      removed = await stores.remove(name, store)
    } catch (error) {
      this.#onDisk.add(name)
      throw error
    }
    if (removed) return void this.#onDisk.delete(name)
    this.#onDisk.add(name)
    this.#options.logger.warn(
      { namespace: name },
      'namespace deleted (reset to its initial data), but the disk refused to remove its files: its next use reads them',
    )
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
    const fromDisk = this.#onDisk.has(name)
    // Looked up before any eviction: a refused request makes no room. Its pets are shared, not copied.
    const snapshot = baseline === undefined || fromDisk ? undefined : this.snapshots.get(baseline)
    if (baseline !== undefined && !fromDisk && snapshot === undefined)
      throw new HttpError(
        ERRORS.baselineMissing,
        `No snapshot ${JSON.stringify(baseline)} for namespace ${JSON.stringify(name)} to start from (TRACE_NAMESPACE_BASELINE): make it (POST /__admin/snapshots), then try again`,
      )
    if (this.#live.size >= this.max) this.#makeRoomFor(name)
    const namespace = new Namespace(
      name,
      this.#journal(),
      this.#options.clock,
      this.#opener(name, snapshot?.pets),
      snapshot?.pets.origin ?? this.#options.stores.origin,
      { fromDisk },
    )
    if (snapshot !== undefined) namespace.clock.startAt(snapshot.clock === null ? null : new Date(snapshot.clock))
    this.#live.set(name, namespace)
    this.#mostRecent = name
    return namespace
  }

  #journal(): Journal {
    const { journals, redactor } = this.#options
    return new Journal(journals.limits.requests, redactor, this.retired, journals)
  }

  /** Least recently used first. */
  list(): Namespace[] {
    return [...this.#live.values()]
  }

  /**
   * Puts a namespace back to its initial data (or to the data of `origin`, such as a seed's or a
   * snapshot's) and clears its journal, faults and clock (to a snapshot's clock when it has one).
   */
  async reset(namespace: Namespace, origin = this.#options.stores.origin): Promise<number> {
    const store = await namespace.store()
    const snapshotName = parseSnapshotOrigin(origin)
    if (snapshotName !== undefined) {
      // Looked up after the wait for the store, where a deletion that began meanwhile hides it.
      const snapshot = this.snapshots.get(snapshotName)
      if (snapshot === undefined) throw new UnknownSnapshot(snapshotName)
      await store.fork(snapshot.pets)
      namespace.journal.clear()
      namespace.faults.clear()
      if (snapshot.clock === null) namespace.clock.clear()
      else namespace.clock.set(new Date(snapshot.clock))
      return store.size
    }
    const shared = await this.#options.stores.sharedPets(origin)
    // A data file of the user's own (no origin) is given the initial data whole: it stands on its own.
    if (store.origin === undefined && origin === this.#options.stores.origin)
      await store.replace({ pets: [...shared.pets] })
    else await store.fork(shared)
    namespace.journal.clear()
    namespace.faults.clear()
    namespace.clock.reset()
    return store.size
  }

  /**
   * Replaces the pets, keeping the store's origin so that a restart keeps them too; refused whole
   * (StoreFull) past a bound on what the stores keep.
   */
  async replace(store: AnimalStore, pets: Pet[]): Promise<void> {
    await store.replace({ ...(store.origin === undefined ? {} : { origin: store.origin }), pets }, { bounded: true })
  }

  /**
   * Which namespaces start from each snapshot (and from the initial data, or a seed), by origin:
   * the live ones and those kept on disk, which are opened to see (and closed again, not made live:
   * that would evict others).
   */
  async forks(): Promise<Map<string, string[]>> {
    const forks = new Map<string, string[]>()
    const note = (name: string, store: AnimalStore | undefined): void => {
      if (store?.base !== undefined) forks.set(store.base, [...(forks.get(store.base) ?? []), name])
    }
    for (const namespace of [...this.#live.values()])
      note(namespace.name, await Promise.resolve(namespace.store()).catch(() => undefined))
    for (const name of [...this.#onDisk]) {
      if (this.#live.has(name)) continue
      const store = await this.#options.stores.open(name).catch(() => undefined)
      await store?.retire()
      note(name, store)
    }
    return forks
  }

  /** Waits for every namespace's writes. */
  async flush(): Promise<void> {
    await Promise.all([...this.#live.values()].map(async (namespace) => (await namespace.store()).flush()))
    await Promise.all([...this.#removing.values()].map((removal) => removal.catch(() => undefined)))
  }

  /** Opens the store on first use, from `baseline` when it has no files; a failed open is tried again. */
  #opener(name: string, baseline?: SharedPets): () => Promise<AnimalStore> {
    let opening: Promise<AnimalStore> | undefined
    return () => {
      opening ??= (async () => {
        // A removal that failed left the name among those on disk: then the files are read.
        await this.#removing.get(name)?.catch(() => undefined)
        return this.#options.stores.open(name, !this.#onDisk.delete(name), baseline)
      })().catch((error: unknown) => {
        opening = undefined
        throw error
      })
      return opening
    }
  }

  /**
   * Evicts the least recently used namespace that holds nothing a test gave it and serves no
   * request; refuses `name` when none does.
   */
  #makeRoomFor(name: string): void {
    for (const namespace of this.#live.values()) {
      if (namespace.name === DEFAULT_NAMESPACE || namespace.busy || namespace.holdsData()) continue
      this.#evict(namespace)
      this.#options.logger.info(
        { namespace: namespace.name, for: name, max: this.max },
        'namespace evicted: it held nothing a test gave it, and MAX_NAMESPACES were kept',
      )
      return
    }
    throw new HttpError(
      ERRORS.namespaceLimit,
      `No room for namespace ${JSON.stringify(name)}: the ${this.max} namespaces kept (MAX_NAMESPACES) all hold data a test gave them (pets created or replaced, a reset to a seed or a snapshot, a fault, a moved clock); delete one (DELETE /__admin/namespaces/{name}) or reset it, then try again`,
      RETRY_AFTER,
    )
  }

  #evict(namespace: Namespace): void {
    const name = namespace.name
    this.#live.delete(name)
    if (this.#mostRecent === name) this.#mostRecent = undefined
    namespace.journal.close()
    this.evicted++
    // No one waits for an eviction: a disk that refuses it leaves the namespace whole on disk, to
    // be read back at its next use, as after a restart.
    this.#remove(name, namespace).catch((error: unknown) =>
      this.#options.logger.warn(
        { namespace: name, err: error },
        'namespace evicted from memory, but the disk refused its removal: kept on disk, its next use reads it',
      ),
    )
  }
}

/** The W3C Baggage member that names a request's namespace, for services that pass baggage on. */
export const NAMESPACE_BAGGAGE = 'sandbox.namespace'

/**
 * Which namespace a request asks for: its name, or the problem with what it sent. It may name one
 * by the X-Sandbox-Namespace header, by its API key in the key mode, or by the baggage member
 * sandbox.namespace; those it sends must agree. Naming none, it gets the default namespace, or
 * with `fromTrace` (NAMESPACE_FROM_TRACE) the one named after the trace id of its traceparent.
 */
export function namespaceOf(
  req: IncomingMessage,
  keyPrefix: string | undefined,
  fromTrace = false,
): { name: string; fromTrace?: boolean; problem?: undefined } | { name?: undefined; problem: string } {
  const header = req.headers[NAMESPACE_HEADER]
  const sent: Array<{ by: string; value: string | undefined }> = []
  if (header !== undefined) sent.push({ by: 'X-Sandbox-Namespace', value: String(header) })
  for (const value of baggageValues(req, NAMESPACE_BAGGAGE)) {
    sent.push({ by: `The baggage member ${NAMESPACE_BAGGAGE}`, value })
  }
  const named: Array<{ by: string; name: string }> = []
  for (const { by, value } of sent) {
    if (value === undefined || !NAMESPACE_NAME.test(value)) {
      const got =
        value === undefined ? 'a value that is not valid percent-encoding' : JSON.stringify(value.slice(0, 80))
      return {
        problem: `${by} must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got ${got}`,
      }
    }
    named.push({ by, name: value })
  }
  const fromKey = keyPrefix === undefined ? undefined : namespaceOfKey(bearerToken(req), keyPrefix)
  if (fromKey !== undefined) named.push({ by: 'the API key', name: fromKey })
  const [first, ...others] = named
  if (first === undefined) {
    // A trace id is 32 hex digits: a valid namespace name.
    const traceId = fromTrace ? traceIdOf(req) : undefined
    return traceId === undefined ? DEFAULT_CHOICE : { name: traceId, fromTrace: true }
  }
  const other = others.find((o) => o.name !== first.name)
  if (other !== undefined) {
    return {
      problem: `${first.by} (namespace ${first.name}) and ${lowerFirst(other.by)} (namespace ${other.name}) choose different namespaces: send one of them`,
    }
  }
  return { name: first.name }
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1)

// What nearly every request asks for: one object for all of them.
const DEFAULT_CHOICE = Object.freeze({ name: DEFAULT_NAMESPACE })

/** In the key mode, the namespace a key selects: the part after the prefix. */
export function namespaceOfKey(token: string | undefined, keyPrefix: string): string | undefined {
  if (token === undefined || !token.startsWith(keyPrefix)) return undefined
  const name = token.slice(keyPrefix.length)
  return NAMESPACE_NAME.test(name) ? name : undefined
}
