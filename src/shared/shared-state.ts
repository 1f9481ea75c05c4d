// A namespace shared by replicas through the database (DATABASE_URL). The replica holding its lease
// (leases.ts) serves it from memory as a single process does, and commits each request's change,
// fenced by the lease's epoch, before its answer leaves; it reads the namespace whole when the lease
// comes to it. Another replica only reads it, under its row's lock (SELECT ... FOR UPDATE), taking
// what changed since it last did. So an nth-call fault fires once, and the journal, its counts and
// the pets are the same whichever replica is asked.
import type pg from 'pg'
import type { Logger } from 'pino'
import { CoverageTally } from '../journal/coverage-tally.js'
import type { Redactor } from '../journal/redactor.js'
import type { Namespace } from '../namespaces/namespace.js'
import type { NamespaceHold } from '../namespaces/namespace-backend.js'
import type { RequestRecord } from '../journal/request-record.js'
import { HttpError } from '../http/errors.js'
import type { Baseline } from '../store/baseline.js'
import type { FrozenPets } from '../store/pets.js'
import { IdempotencyKeys } from '../store/idempotency-keys.js'
import { isOutage, noNamespace, unavailable, type Database, type Transaction } from './database.js'
import { before, STEPS_WITHIN_MS } from './deadline.js'
import { Batches } from './batches.js'
import { changeSince, durably, stateOf, type Synced, type Taken } from './changes.js'
import { hand } from './handed.js'
import { Hold, type Holder, tooSlow } from './hold.js'
import { type Elsewhere, fencedOff, type Lease, Leases, moved, writtenOver } from './leases.js'
import { Turns } from './turns.js'
import { Unjournaled } from './unjournaled.js'
import { begin, commitChanges, createRow, deletedAt, keepSnapshot, lockAndRead, readAfter } from './tables.js'
import type { After, HandedRow, Locked, State } from './tables.js'

export interface SharingOptions {
  readonly database: Database
  /** The frozen pets of a baseline, which a namespace's pets start from. */
  readonly frozenPets: (baseline: Baseline) => Promise<FrozenPets>
  /** What a request's entry may show: keys and tokens never reach the database. */
  readonly redactor: Redactor
  /** Where a failure that is not an outage is told (it is answered 500). */
  readonly logger: Pick<Logger, 'error'>
  /** NAMESPACES_PER_KEY: the namespaces one key may make, counted in the database. */
  readonly perKey?: number | undefined
  /** JOURNAL_SIZE: what a replica keeps of the entries it could not commit. */
  readonly journalSize: number
}

export class Sharing implements Holder {
  readonly database: Database
  readonly #options: SharingOptions
  readonly logger: Pick<Logger, 'error'>
  readonly #synced = new WeakMap<Namespace, Synced>()
  readonly #turns = new Turns()
  readonly flying = new Set<Promise<void>>()
  readonly batches = new Batches(this)
  /** Which namespaces this replica serves. */
  readonly leases: Leases
  /** Namespaces whose lease came back to this replica with a new epoch: read whole at their next hold. */
  readonly #moved = new Set<string>()
  /** Requests answered while the database was away: journaled at their namespace's next hold here. */
  readonly unjournaled: Unjournaled

  constructor(options: SharingOptions) {
    this.#options = options
    this.database = options.database
    this.logger = options.logger
    this.unjournaled = new Unjournaled(options.logger, options.redactor, options.journalSize)
    this.leases = new Leases(options.database)
  }

  /**
   * Locks the namespace's row (made from `fresh` if there is none, counted against `owner`; a 404
   * if `keptOnly`, when no entry is kept for it), brings the namespace up to date with it, and gives
   * the hold that writes back and commits. A 503 when the database is down, or past the quota.
   * Every step with the database ends within STEPS_WITHIN_MS of `came` (the request's, or the call),
   * its commit too.
   */
  async hold(
    namespace: Namespace,
    fresh: () => Namespace,
    { owner, keptOnly = false, came = performance.now() }: { owner?: string; keptOnly?: boolean; came?: number } = {},
  ): Promise<NamespaceHold> {
    const due = came + STEPS_WITHIN_MS
    // Requests here in one namespace queue here first: one at a time holds it, not a crowd of connections.
    const letGo = await this.#turns.take(namespace.name, due - performance.now())
    if (letGo === undefined) throw tooSlow()
    // Its owner serves it from memory, and commits behind (batches.ts).
    const lease = this.leases.valid(namespace.name)
    if (lease !== undefined && this.serves(namespace))
      return this.batches.hold(namespace, lease, letGo, this.unjournaled.take(namespace.name), came)
    // Held by another replica: the namespace is only read here, and a change is refused. What its
    // owner here took is committed first, as the namespace is read anew.
    const holding = this.batches
      .idle(namespace)
      .then(() => this.owner(namespace.name))
      .then(
        (lease) =>
          this.#lock(namespace, fresh, letGo, 'address' in lease ? undefined : lease, { owner, keptOnly, due }),
        (error: unknown) => {
          letGo()
          throw this.failure(error)
        },
      )
    return before(due, holding, () => {
      // Too late for this request: the row is let go as soon as it comes.
      holding.then((hold) => hold.abandon()).catch(() => undefined)
      return tooSlow()
    })
  }

  /** Whether this replica serves `namespace` from memory now: its lease held, and its memory synced. */
  serves(namespace: Namespace): boolean {
    const { name } = namespace
    return this.leases.valid(name) !== undefined && !this.#moved.has(name) && this.#synced.has(namespace)
  }

  /** The lease of `name`, taken if it is free or expired; or where another replica holds it. */
  async owner(name: string): Promise<Lease | Elsewhere> {
    const valid = this.leases.valid(name)
    // Not before this replica knows where it is reached: other replicas could not forward to it.
    if (valid !== undefined || this.leases.address === undefined) return valid ?? { address: '' }
    const taken = await this.leases.take(name)
    if (!('lease' in taken)) return taken
    // Another replica may have written since this one last held the lease: all is read anew.
    if (taken.moved) this.#moved.add(name)
    return taken.lease
  }

  async #lock(
    namespace: Namespace,
    fresh: () => Namespace,
    letGo: () => void,
    lease: Lease | undefined,
    { owner, keptOnly, due }: { owner: string | undefined; keptOnly: boolean; due: number },
  ): Promise<Hold> {
    const client = await this.database.connect(due).catch((error: unknown) => {
      letGo()
      throw error
    })
    try {
      if (this.#moved.delete(namespace.name)) this.forget(namespace)
      const synced = this.#synced.get(namespace)
      // The owner's memory is the namespace's truth while its lease holds: nothing to lock or read,
      // unless the database restarted since (it may have lost what was written without waiting).
      let handed: HandedRow[] = []
      if (lease !== undefined && synced !== undefined) {
        const begun = await begin(client, namespace.name, due)
        if (begun.server === synced.server) return await this.#held(client, namespace, begun, letGo, due, lease)
        handed = begun.handed
      }
      let after = { pets: synced?.state.pets.lastId ?? 0, requests: synced?.state.journal.lastId ?? 0 }
      let locked = await lockAndRead(client, namespace.name, after, lease === undefined || synced === undefined)
      if (locked.row === undefined) {
        await this.unjournaled.sinceDeletion(namespace.name, () => deletedAt(client, namespace.name))
        if (keptOnly && !this.unjournaled.keeps(namespace.name)) throw noNamespace(namespace.name)
        // A name made again after a deletion starts as new; a name never synced here is new already.
        const template = synced === undefined ? namespace : fresh()
        const store = await template.store()
        const keys = store.idempotencyKeys
        const { perKey } = this.#options
        const quota = owner === undefined || perKey === undefined ? undefined : { owner, perKey }
        const state = JSON.stringify(await stateOf(template))
        await createRow(client, namespace.name, state, store.own, (id) => keys.ofPet(id), quota)
        this.forget(namespace)
        after = { pets: 0, requests: 0 }
        locked = await lockAndRead(client, namespace.name, after, false)
      }
      await this.#take(client, namespace, locked, after)
      return await this.#held(client, namespace, { ...locked.transaction, handed }, letGo, due, lease)
    } catch (error) {
      this.forget(namespace)
      if (!isOutage(error)) await client.query('ROLLBACK').catch(() => undefined)
      client.release(true)
      letGo()
      throw this.failure(error)
    }
  }

  /** The hold. Entries answered here unjournaled join the owner's journal (with those handed to it), or go to it. */
  async #held(
    client: pg.PoolClient,
    namespace: Namespace,
    begun: Transaction & { readonly handed?: readonly HandedRow[] },
    letGo: () => void,
    due: number,
    lease?: Lease,
  ): Promise<Hold> {
    await this.unjournaled.sinceDeletion(namespace.name, () => deletedAt(client, namespace.name))
    const { late, unwritten } = this.unjournaled.forHold(namespace.name, begun.handed ?? [], namespace.journal)
    // Another replica owns the namespace: what was answered here is handed on (kept again if that fails).
    if (lease === undefined && unwritten.length > 0)
      await hand(client, namespace.name, this.unjournaled.handing(unwritten)).catch((error: unknown) => {
        this.later(namespace.name, ...late)
        throw error
      })
    if (lease !== undefined) this.unjournaled.journalInto(namespace.name, namespace.journal, unwritten)
    return new Hold(this, client, namespace, begun, letGo, late, lease, due)
  }

  /**
   * Takes what other replicas wrote since this one last held the namespace: what was read with the
   * lock (after the ids `after`), or read again when that was not what is needed now (the pets were
   * replaced, the journal cleared or the name made anew; or a request here moved on meanwhile).
   */
  async #take(client: pg.PoolClient, namespace: Namespace, locked: Locked, after: After): Promise<void> {
    const { row, transaction } = locked
    if (row === undefined) throw new Error(`namespace ${namespace.name} vanished while it was made`)
    // A crash of the database may have lost what this replica last wrote without waiting for the
    // disk, and given its version to another replica's write since: after a restart, all is read.
    const last = this.#synced.get(namespace)
    const synced = last?.server === transaction.server ? last : undefined
    if (synced?.incarnation === row.incarnation && synced.version === row.version) return
    const { state } = row
    const same = synced?.incarnation === row.incarnation ? synced.state : undefined
    const morePets = same !== undefined && same.pets.generation === state.pets.generation
    const moreEntries = same !== undefined && same.journal.clears === state.journal.clears
    const needed = { pets: morePets ? same.pets.lastId : 0, requests: moreEntries ? same.journal.lastId : 0 }
    const { pets, keys, records } =
      needed.pets === after.pets && needed.requests === after.requests
        ? locked
        : await readAfter(client, namespace.name, needed)
    const store = await namespace.store()
    if (morePets) {
      for (const key of keys) store.idempotencyKeys.add(key)
      store.takeAdded(pets)
    } else {
      const base = state.base === null ? undefined : await this.#options.frozenPets(state.base)
      const idempotencyKeys = IdempotencyKeys.from(keys)
      store.restore({ ...(state.source === null ? {} : { source: state.source }), pets, idempotencyKeys }, base)
    }
    const { journal } = state
    namespace.journal.adopt(records, CoverageTally.load(journal.tally), journal, !moreEntries)
    namespace.faults.restore(state.faults)
    namespace.clock.restore(state.clock)
    this.#remember(namespace, { incarnation: row.incarnation, version: row.version, server: transaction.server }, state)
  }

  /** Writes back what the request changed in the namespace and commits by `due`, on the held row's connection. */
  readonly give: Holder['give'] = async (client, namespace, lease, due, late) => {
    const { change, snapshot, version } = await this.changeOf(namespace, lease, late)
    if (snapshot !== undefined) await keepSnapshot(client, snapshot)
    const { name } = namespace
    const committed = await commitChanges(client, name, change.fence, [change], due).catch((error: unknown) => {
      if (!fencedOff(error)) throw error
      this.leaseLost(name, error)
      throw moved(name)
    })
    if (version !== undefined && committed !== this.#synced.get(namespace)?.version) this.forget(namespace)
  }

  /** What the request changed in the namespace since it was last synced, remembered as synced; durably() with `late` entries. */
  async changeOf(namespace: Namespace, lease: Lease | undefined, late: boolean): Promise<Taken> {
    const synced = this.#synced.get(namespace)
    if (synced === undefined) throw new Error(`namespace ${namespace.name} was not held`)
    const { redactor } = this.#options
    const { taken, state } = await changeSince(namespace, synced, lease, redactor, this.unjournaled.handed)
    // Known before the commit returns: a request here that waits for the row sees it as soon as the
    // row is let go, which may be before this one hears of the commit.
    if (taken.version !== undefined) this.#remember(namespace, { ...synced, version: taken.version }, state)
    return late ? durably(taken) : taken
  }

  /** After a batch: the namespace is read whole at its next hold unless the row is as memory expects. */
  committed(namespace: Namespace, version: string | undefined, expected: string | undefined, server?: string): void {
    if (version !== expected || this.#synced.get(namespace)?.server !== server) this.#moved.add(namespace.name)
  }

  readonly leaseLost = (name: string, error: unknown): void => {
    if (writtenOver(error)) this.logger.error({ err: error, namespace: name }, 'shared namespace: an id given twice')
    if (fencedOff(error)) this.leases.lost(name)
    else this.leases.anew(name)
  }

  #remember(
    namespace: Namespace,
    { incarnation, version, server }: Pick<Synced, 'incarnation' | 'version' | 'server'>,
    state: State,
  ): void {
    this.#synced.set(namespace, { incarnation, version, server, state })
  }

  /** An outage as its 503; anything else but an HttpError logged, as the bug it is. */
  failure(error: unknown): unknown {
    const answered = unavailable(error)
    if (!(answered instanceof HttpError)) this.logger.error({ err: error }, 'shared namespace: unexpected failure')
    return answered
  }

  /** Keeps entries for the journal of namespace `name`, written at its next hold here (they could not be committed). */
  readonly later = (name: string, ...entries: RequestRecord[]): void => this.unjournaled.add(name, entries)
  readonly doubt = (name: string, ...entries: RequestRecord[]): void => this.unjournaled.doubt(name, entries)
  readonly carried = (name: string, ...entries: RequestRecord[]): void => this.unjournaled.carried(name, entries)

  /** After a failed write: the namespace is read whole from the database at its next hold. */
  forget(namespace: Namespace): void {
    this.#synced.delete(namespace)
  }
}
