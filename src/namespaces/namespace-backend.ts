// Where namespaces are kept: the one seam between the namespace registry (namespaces.ts) and a
// backend. Memory and the data file (namespace-local.ts) and a PostgreSQL database that replicas
// share (src/shared) implement it; the request path, the control API, the journal, coverage and
// verify see only this.
import type { Namespace } from './namespace.js'
import type { RequestRecord } from '../journal/request-record.js'
import type { Baseline } from '../store/baseline.js'
import type { HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import type { FrozenPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'

/**
 * Where a namespace that holds data goes when it must leave memory to make room: nowhere (it
 * stays, and a new one is refused), its files (unloaded, read back at its next use), or the
 * database that keeps every namespace (any may leave: it is read back from there).
 */
export type Keeping = 'memory' | 'files' | 'database'

/** What a namespace unloaded from memory keeps there, beside its files: a few facts, not its pets. */
export interface Unloaded {
  /** Its baseline (a trace's snapshot, or the initial data). */
  readonly baseline: Baseline
  /** Its clock's distance from real time in ms (its baseline's clock runs on); null for real time. */
  readonly clockOffset: number | null
  /** The baseline of the frozen pets its store starts from, once known (for forks()). */
  base?: Baseline | undefined
}

/** The namespaces the registry keeps in memory, as a backend sees them. */
export interface LiveNamespaces {
  /** The one called `name` in memory, if any. */
  find(name: string): Namespace | undefined
  /** The one called `name`, made live if it is not. */
  get(name: string): Namespace
  /** A new namespace object for `name` (not live): what a name made anew starts from. */
  fresh(name: string): Namespace
  /** Gone from memory: its journal's counts go to the run's, its bytes back to the bound. */
  drop(namespace: Namespace): void
  /** Out of memory without closing it, while a deletion is under way. */
  take(name: string): void
  /** Back in memory after a deletion failed, unless its name was made anew meanwhile: whether it was. */
  restore(namespace: Namespace): boolean
  /** Least recently used first. */
  list(): Namespace[]
}

/** A namespace held for one request: released (written back, committed) before the answer. */
export interface NamespaceHold {
  release(): Promise<void>
  abandon(): Promise<void>
}

/** The entry of a request, or (given the failure it is answered with) as it was answered. */
export type EntryOf = (failure?: HttpError) => RequestRecord

export interface NamespaceBackend {
  readonly keeps: Keeping
  /** A journal's counts stay in the backend when it leaves memory: the registry retires none. */
  readonly keepsCounts: boolean
  /** Whether `name` has data kept outside memory that its next use reads (files not read yet). */
  stored(name: string): boolean
  /** What an unloaded `name` kept in memory, taken as it is made live again. */
  takeUnloaded(name: string): Unloaded | undefined
  /** Opens the store of `name`: from what is kept of it, or from the frozen pets `frozen` when nothing is. */
  open(name: string, frozen: FrozenPets | undefined): Promise<AnimalStore>
  /**
   * The namespace called `name` when it exists, live or kept; never created (a misspelt name makes
   * none). `came`: when the request came (Exchange.came), which bounds its time with the backend.
   */
  existing(name: string, came?: number): Promise<Namespace | undefined>
  /**
   * Deletes a namespace durably before this settles; false when there was none. Failed: nothing
   * changed. `came` as existing()'s.
   */
  delete(name: string, came?: number): Promise<boolean>
  /**
   * Counts the new namespace `name` against the API key whose hash is `owner` (NAMESPACES_PER_KEY),
   * or refuses it with a 503 namespace_limit; false when it was counted already. Absent: the backend
   * counts where it keeps namespaces, as its hold makes one.
   */
  claim?(name: string, owner: string): boolean
  /** Gives back what claim() counted, for a namespace that was not made after all. */
  giveBack?(name: string): void
  /**
   * Holds `namespace` for one request, brought up to date with what is kept: undefined when memory
   * here is the namespace's truth, so that a plain request goes through without a promise. `owner`:
   * the request's key hash, which a namespace the hold makes counts against; `came`: when the
   * request came (Exchange.came), which bounds its time with the backend.
   */
  hold(namespace: Namespace, owner?: string, came?: number): Promise<NamespaceHold> | undefined
  /** Journals the entry of a request answered with no hold of its own (refused before it was served). */
  record(namespace: Namespace, entry: EntryOf): Promise<void> | undefined
  /** Keeps the entry of a request whose change could not be committed, for its namespace's journal. */
  later(namespace: Namespace, entry: RequestRecord): void
  /** Every namespace, least recently used first (those kept elsewhere brought into memory, up to date). */
  all(): Promise<Namespace[]>
  /** The namespaces that start from each baseline (by baselineKey); `came` as existing()'s. */
  forks(came?: number): Promise<Map<string, string[]>>
  /** `namespace` left memory holding nothing a test gave it: what is kept of it goes too. */
  evict(namespace: Namespace): void
  /** `namespace` left memory holding data: kept, and read back at its next use. */
  unload(namespace: Namespace): void
  /** Waits for the removals and unloads under way. */
  settled(): Promise<void>
  /**
   * Hands a request in namespace `name` to the process that serves it when another does, before
   * anything here journals it: undefined when this one serves it, else whether it was handed on.
   */
  forward?(name: string, exchange: Exchange): Promise<boolean> | undefined
}
