// The namespace backend of replicas sharing a PostgreSQL database (DATABASE_URL). Each replica
// keeps namespaces in memory as one process does (a memory backend below), and the database keeps
// them all: a namespace is held for each request, brought up to date and its change committed
// (Sharing, shared-state.ts), so any one may leave a replica's memory and be read back.
import type { Logger } from 'pino'
import type { EntryOf, LiveNamespaces, NamespaceBackend, NamespaceHold } from '../namespaces/namespace-backend.js'
import { DEFAULT_NAMESPACE } from '../namespaces/namespace-choice.js'
import { LocalNamespaces } from '../namespaces/namespace-local.js'
import type { Namespace } from '../namespaces/namespace.js'
import type { RequestRecord } from '../journal/request-record.js'
import { ERRORS, HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import { baselineKey, type Baseline } from '../store/baseline.js'
import type { FrozenPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import type { Stores } from '../store/stores.js'
import type { Database } from './database.js'
import { dueOf, STEPS_WITHIN_MS } from './deadline.js'
import { addressOf, forward, FORWARDED, spentBefore } from './forward.js'
import { fencedOff, moved } from './leases.js'
import type { Sharing } from './shared-state.js'

export class SharedNamespaces implements NamespaceBackend {
  readonly keeps = 'database'
  /** A journal's counts stay in its row when it leaves a replica's memory. */
  readonly keepsCounts = true
  readonly #live: LiveNamespaces
  readonly #memory: LocalNamespaces
  readonly #sharing: Sharing
  readonly #database: Database

  constructor(live: LiveNamespaces, stores: Stores, sharing: Sharing, logger: Pick<Logger, 'warn'>) {
    this.#live = live
    this.#memory = new LocalNamespaces(live, stores, logger)
    this.#sharing = sharing
    this.#database = sharing.database
    // Entries kept while the database was away are written by a hold of their namespace, as a
    // request's; one deleted since they were answered is not made again for them.
    sharing.unjournaled.flushWith(async (name) => {
      const known = live.find(name)
      const namespace = known ?? live.get(name)
      const hold = await sharing
        .hold(namespace, () => live.fresh(name), { keptOnly: true })
        .catch((error: unknown) => {
          if (known === undefined && !sharing.serves(namespace)) live.drop(namespace)
          throw error
        })
      await hold.release()
    })
  }

  stored(): boolean {
    return false
  }

  takeUnloaded(): undefined {
    return undefined
  }

  open(name: string, baseline: FrozenPets | undefined): Promise<AnimalStore> {
    return this.#memory.open(name, baseline)
  }

  async existing(name: string, came?: number): Promise<Namespace | undefined> {
    // Its owner serving it from memory knows it exists: its row goes only by its owner's deletion.
    const live = this.#live.find(name)
    if (live !== undefined && this.#sharing.serves(live)) return live
    const { rowCount } = await this.#database.query('SELECT 1 FROM namespaces WHERE name = $1', [name], dueOf(came))
    if (rowCount === 1) return this.#live.get(name)
    // Its owner keeps it: its first request here may be making its row (a second object for the
    // name would give its journal's ids twice).
    const stale = this.#live.find(name)
    if (stale !== undefined && this.#sharing.leases.valid(name) === undefined) this.#live.drop(stale)
    return undefined
  }

  /** With its pets and requests, by the namespace's owner (fenced as every write of it). */
  async delete(name: string, came = performance.now()): Promise<boolean> {
    const due = came + STEPS_WITHIN_MS
    const lease = await this.#sharing.owner(name)
    if ('address' in lease) throw moved(name)
    const namespace = this.#live.find(name)
    if (namespace !== undefined) this.#live.drop(namespace)
    // What its requests changed is committed first: nothing of it outlives the deletion.
    if (namespace !== undefined) await this.#sharing.batches.idle(namespace)
    return this.#database
      .transaction(async (client) => {
        await client.query('SELECT fence($1, $2, $3)', [name, lease.owner, lease.epoch])
        return (await client.query('DELETE FROM namespaces WHERE name = $1', [name])).rowCount === 1
      }, due)
      .then((deleted) => {
        this.#sharing.unjournaled.drop(name)
        return deleted
      })
      .catch((error: unknown) => {
        if (!fencedOff(error)) throw error
        this.#sharing.leases.lost(name)
        throw moved(name)
      })
  }

  /** The namespace's row locked and the namespace brought up to date with it (made anew if it has none). */
  hold(namespace: Namespace, owner?: string, came?: number): Promise<NamespaceHold> {
    return this.#sharing.hold(namespace, () => this.#live.fresh(namespace.name), { owner, came })
  }

  record(namespace: Namespace, entry: EntryOf): Promise<void> | undefined {
    // Its own hold failed for want of the database: another would too.
    const answered = entry()
    if (answered.error?.code === ERRORS.storageUnavailable.code) return void this.later(namespace, answered)
    // Refused by its key's quota, it has no row, and its entry must not make one: it is kept for the
    // default namespace's journal (whose owner may be another replica), as one process journals it.
    if (answered.error?.code === ERRORS.namespaceLimit.code && namespace.name !== DEFAULT_NAMESPACE)
      return void this.later(this.#live.get(DEFAULT_NAMESPACE), answered)
    return this.hold(namespace)
      .then((hold) => {
        namespace.journal.record(answered)
        return hold.release()
      })
      .catch((failure: unknown) => {
        const error = failure instanceof HttpError ? failure : new HttpError(ERRORS.internal, ERRORS.internal.message)
        this.later(namespace, entry(error))
        throw failure
      })
  }

  /** Journaled with its answer once the database is back, by the namespace's next hold here. */
  later(namespace: Namespace, entry: RequestRecord): void {
    this.#sharing.later(namespace.name, entry)
  }

  /** Every one in the database, oldest first, brought up to date. */
  async all(): Promise<Namespace[]> {
    const { rows } = await this.#database.query<{ name: string }>('SELECT name FROM namespaces ORDER BY incarnation')
    const names = rows.map((row) => row.name)
    for (const name of names) await (await this.hold(this.#live.get(name))).release()
    return names.map((name) => this.#live.get(name))
  }

  async forks(came?: number): Promise<Map<string, string[]>> {
    const { rows } = await this.#database.query<{ name: string; base: Baseline }>(
      "SELECT name, state -> 'base' AS base FROM namespaces WHERE state -> 'base' <> 'null'::jsonb ORDER BY incarnation",
      [],
      dueOf(came),
    )
    const forks = new Map<string, string[]>()
    for (const { name, base } of rows) forks.set(baselineKey(base), [...(forks.get(baselineKey(base)) ?? []), name])
    return forks
  }

  evict(namespace: Namespace): void {
    this.#memory.evict(namespace)
  }

  unload(namespace: Namespace): void {
    this.#memory.unload(namespace)
  }

  settled(): Promise<void> {
    return this.#memory.settled()
  }

  /** To the replica holding the namespace's lease; none taken here while this one may take it. */
  forward(name: string, exchange: Exchange): Promise<boolean> | undefined {
    const leases = this.#sharing.leases
    leases.address ??= addressOf(exchange.req)
    // A forwarded request is served by the replica it reached, or refused by it (its lease moved),
    // in the time the forwarding replica left it.
    if (exchange.req.headers[FORWARDED] !== undefined) {
      exchange.spent = spentBefore(exchange.req)
      return undefined
    }
    if (leases.valid(name) !== undefined) return undefined
    const known = leases.elsewhere(name)
    if (known !== undefined) return this.#forwardTo(name, exchange, known.address)
    return this.#sharing.owner(name).then(
      (owner) => 'address' in owner && this.#forwardTo(name, exchange, owner.address),
      // The database did not say (away, or too slow under load): to the replica that last held the
      // namespace, in the time left; with none, or unreachable, the request is served here, and
      // answered as its hold fares.
      () => {
        const last = leases.lastHeld(name)
        return last !== undefined && this.#forwardTo(name, exchange, last.address)
      },
    )
  }

  /** Unreachable, the owner is asked again next time, and the request is served here (its hold refuses a change). */
  async #forwardTo(name: string, { req, res, came }: Exchange, address: string): Promise<boolean> {
    const went = await forward(req, res, address, performance.now() - came)
    if (!went) this.#sharing.leases.forgetElsewhere(name)
    return went
  }
}
