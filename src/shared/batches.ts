// The owner of a namespace serves it from memory and commits behind, in batches: a request holds
// only the namespace's turn, and its change, taken as it lets go, joins the next batch. One batch
// flies at a time per namespace, and what comes meanwhile shares the next transaction (one flush for
// many creates). An answer waits for every batch holding a durable change it made or saw; a read's
// goes at once. A batch that fails fails those after it, which ran on what it held: nothing of theirs
// is written, their entries are kept for the journal, and the namespace is read whole again.
import type pg from 'pg'
import type { Namespace } from '../namespaces/namespace.js'
import type { NamespaceHold } from '../namespaces/namespace-backend.js'
import type { RequestRecord } from '../journal/request-record.js'
import { isOutage, unknownOutcome, type Database } from './database.js'
import { fencedOff, type Lease, moved } from './leases.js'
import { Batch, GATHER_MS, Gathering } from './batch.js'
import { nothingIn, type Taken } from './changes.js'
import type { Unjournaled } from './unjournaled.js'
import { begin, commitChanges, keepSnapshot, type Begun } from './tables.js'

/** What batches ask of the replica's sharing. */
export interface Owner {
  readonly database: Database
  readonly unjournaled: Pick<Unjournaled, 'handed' | 'journalInto'>
  /** The batches under way in every namespace, until each is settled. */
  readonly flying: Set<Promise<void>>
  /** `late`: the change journals entries kept while the database was away, and waits for the disk. */
  changeOf(namespace: Namespace, lease: Lease, late: boolean): Promise<Taken>
  /** After a batch: the namespace is read whole at its next hold unless the row is as memory expects. */
  committed(namespace: Namespace, version: string | undefined, expected: string | undefined, server?: string): void
  forget(namespace: Namespace): void
  failure(error: unknown): unknown
  later(name: string, ...entries: RequestRecord[]): void
  doubt(name: string, ...entries: RequestRecord[]): void
  /** The lease is asked again (at a new epoch after an unknown outcome); a write refused for an id the database holds is logged. */
  leaseLost(name: string, error: unknown): void
}

/** One namespace's commits behind its owner's memory. */
class Committer {
  #flying: Batch | undefined
  #next: Batch | undefined
  /** Whether batches are under way: one flying, or the next gathering reads. */
  #running = false
  /** Ends the gathering of the next batch at once. */
  #hurry: (() => void) | undefined
  /** Whether batches fly without gathering until the committer is idle (its namespace is deleted, the replica stops). */
  #hurried = false
  /** Grows at each failed batch: a hold taken before it ran on what was lost. */
  generation = 0
  failed: unknown
  idle: Promise<void> = Promise.resolve()
  #idle: (() => void) | undefined

  readonly namespace: Namespace
  readonly owner: Owner
  /** The replica's gathering, this committer among them while it gathers. */
  readonly #gathering: Gathering

  constructor(namespace: Namespace, owner: Owner, gathering: Gathering) {
    this.namespace = namespace
    this.owner = owner
    this.#gathering = gathering
  }

  /** Ends the gathering of the next batch at once, and of those after it until the committer is idle. */
  hurry(): void {
    if (!this.#running) return
    this.#hurried = true
    this.#hurry?.()
  }

  /**
   * Joins the next batch, for a request that came at `came`; what the answer waits for, if anything
   * (the batches holding a durable change before it).
   */
  add(taken: Taken | undefined, mark: number, lease: Lease, came: number): Promise<void> | undefined {
    if (taken !== undefined && !nothingIn(taken.change)) {
      const batch = (this.#next ??= new Batch())
      const queued = batch.push(taken, mark, came)
      if (batch.durable) this.#hurry?.()
      if (!this.#running) void this.#fly(lease)
      const seen = this.#seen()
      if (seen === undefined) queued.answered = true
      return seen?.then(() => void (queued.answered = true))
    }
    return this.#seen()
  }

  #seen(): Promise<void> | undefined {
    if (this.#next?.durable === true) return this.#next.done
    if (this.#flying?.durable === true) return this.#flying.done
    return undefined
  }

  async #fly(lease: Lease): Promise<void> {
    this.#running = true
    this.idle = new Promise((resolve) => (this.#idle = resolve))
    this.owner.flying.add(this.idle)
    void this.idle.then(() => this.owner.flying.delete(this.idle))
    try {
      while (this.#next !== undefined) {
        if (!this.#next.durable && !this.#hurried && !this.#gathering.stopping) await this.#gather()
        // A bug is its batch's failure (a 500, logged), never a committer that stops.
        const failure = await this.#commit(lease).catch((error: unknown) => this.owner.failure(error))
        const batch = this.#flying ?? this.#take()
        this.#flying = undefined
        if (failure !== undefined) this.#fail(batch, failure)
        else batch.settle()
      }
    } catch (error) {
      // A bug past the batch's own failure: every request still waiting is answered it (a 500, logged).
      const failure = this.owner.failure(error)
      for (const batch of [this.#flying, this.#next]) batch?.settle(failure)
      this.#next = undefined
    } finally {
      // The next change starts the committer again.
      this.#running = false
      this.#hurried = false
      this.#flying = undefined
      this.#idle?.()
    }
  }

  /** Until GATHER_MS passed, or a durable change joined the next batch, or the batch is hurried. */
  #gather(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.#hurry = undefined
        this.#gathering.committers.delete(this)
        resolve()
      }
      const timer = setTimeout(done, GATHER_MS)
      this.#hurry = done
      this.#gathering.committers.add(this)
    })
  }

  /** The next batch in flight: what comes from now on joins the one after. */
  #take(): Batch {
    const batch = this.#next ?? new Batch()
    this.#flying = batch
    this.#next = undefined
    return batch
  }

  /**
   * The next batch, taken once its transaction has begun (what comes during that round trip joins
   * it), written and committed by its due time: undefined, or what its requests are answered.
   */
  async #commit(lease: Lease): Promise<unknown> {
    const { namespace, owner } = this
    // Due as its first waiting request: what joins it from now on came later.
    const due = this.#next?.due
    let client: pg.PoolClient
    try {
      client = await owner.database.connect(due)
    } catch (error) {
      return owner.failure(error)
    }
    let begun: Begun | undefined
    let version: string | undefined
    let changes: Taken[] = []
    const { handed } = owner.unjournaled
    try {
      begun = await begin(client, namespace.name, due)
      const batch = this.#take()
      changes = batch.queued.map((queued) => queued.taken)
      // Entries other replicas handed to this namespace: journaled at its next hold here, their rows kept till then.
      owner.later(namespace.name, ...handed.fresh(namespace.name, begun.handed))
      for (const { snapshot } of changes) if (snapshot !== undefined) await keepSnapshot(client, snapshot)
      const written = changes.map((taken) => taken.change)
      version = await commitChanges(client, namespace.name, written[0]?.fence ?? lease, written, batch.due)
      client.release()
    } catch (error) {
      const outage = isOutage(error)
      if (!outage) await client.query('ROLLBACK').catch(() => undefined)
      client.release(true)
      const committed = outage && begun !== undefined ? await owner.database.committed(begun) : false
      // Fenced off, the lease moved; of unknown outcome, the commit may land later (a new epoch fences it off).
      if (fencedOff(error) || committed === undefined) owner.leaseLost(namespace.name, error)
      if (fencedOff(error)) return moved(namespace.name)
      if (committed === false) return owner.failure(error)
      if (committed === undefined) {
        if (this.#flying !== undefined) this.#flying.unknown = true
        return unknownOutcome()
      }
      // Committed, its answer lost on the way: the version it gave is not known, so memory is read anew.
    }
    const expected = changes.findLast((taken) => taken.version !== undefined)?.version
    owner.committed(namespace, version, expected, begun?.server)
    // The handed entries this batch journaled: their rows left the table with it.
    const journaled = changes.flatMap((taken) => taken.change.handed)
    handed.letGo(namespace.name, journaled)
    return undefined
  }

  /** `batch` failed, and the one after it with it: nothing of the next is written. */
  #fail(batch: Batch, failure: unknown): void {
    this.generation++
    this.failed = failure
    const next = this.#next
    this.#next = undefined
    this.owner.forget(this.namespace)
    for (const failed of next === undefined ? [batch] : [batch, next]) {
      for (const { taken, mark, answered } of failed.queued) {
        this.owner.unjournaled.handed.letGo(this.namespace.name, taken.change.handed)
        // A request still waiting is answered the failure, and journaled so by its holder.
        const kept = taken.entries.filter(({ id }) => answered || id <= mark).map(({ record }) => record)
        if (kept.length === 0) continue
        // A batch that may be stored keeps its entries as doubtful: journaled only if it was not.
        if (failed.unknown) this.owner.doubt(this.namespace.name, ...kept)
        else this.owner.later(this.namespace.name, ...kept)
      }
      failed.settle(failure)
    }
  }
}

/** Every namespace this replica owns, committed behind. */
export class Batches {
  readonly #committers = new WeakMap<Namespace, Committer>()
  readonly #gathering = new Gathering()
  readonly #owner: Owner
  constructor(owner: Owner) {
    this.#owner = owner
  }

  /**
   * The owner's hold of `namespace` for a request that came at `came`: its turn (given) and its
   * lease, nothing asked of the database; `late` entries journaled.
   */
  hold(
    namespace: Namespace,
    lease: Lease,
    letGo: () => void,
    late: readonly RequestRecord[],
    came: number,
  ): NamespaceHold {
    const committer = this.#committer(namespace)
    const { generation } = committer
    this.#owner.unjournaled.journalInto(namespace.name, namespace.journal, late)
    const mark = namespace.journal.lastId
    let ended: Promise<void> | undefined
    const release = async (): Promise<{ wait: Promise<void> | undefined }> => {
      // A batch failed since the hold began: what the request ran on is not kept, nor remembered as synced.
      const failed = (): unknown => {
        this.#owner.forget(namespace)
        this.#owner.later(namespace.name, ...late)
        return committer.failed
      }
      try {
        if (committer.generation !== generation) throw failed()
        const taken = await this.#owner.changeOf(namespace, lease, late.length > 0)
        if (committer.generation !== generation) throw failed()
        return { wait: committer.add(taken, mark, lease, came) }
      } finally {
        letGo()
      }
    }
    return {
      release: () => (ended ??= release().then(({ wait }) => wait)),
      // Once released, the hold is over: an abandon that follows a failed release changes nothing.
      abandon: () =>
        (ended ??= Promise.resolve().then(() => {
          // What the request did in memory is not taken: the namespace is read whole at its next hold.
          this.#owner.forget(namespace)
          this.#owner.later(namespace.name, ...late)
          letGo()
        })),
    }
  }

  /** Once every change taken in any namespace is committed (or failed), none gathering any more: before the leases end. */
  settled(): Promise<void> {
    this.#gathering.stopping = true
    for (const committer of this.#gathering.committers) committer.hurry()
    return Promise.all(this.#owner.flying).then(() => undefined)
  }

  /** Once every change taken in `namespace` is committed (or failed), its reads not gathering on. */
  idle(namespace: Namespace): Promise<void> {
    const committer = this.#committers.get(namespace)
    committer?.hurry()
    return committer?.idle ?? Promise.resolve()
  }

  #committer(namespace: Namespace): Committer {
    let committer = this.#committers.get(namespace)
    if (committer === undefined)
      this.#committers.set(namespace, (committer = new Committer(namespace, this.#owner, this.#gathering)))
    return committer
  }
}
