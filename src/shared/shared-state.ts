// A namespace shared by replicas through the database (DATABASE_URL). Each replica keeps the
// namespace in memory as a single process does, and a request works on it while it holds the
// namespace's row locked (SELECT ... FOR UPDATE): first it takes what other replicas changed since
// it last held it, then it writes back what it changed, and commits before its answer leaves. So
// requests in one namespace are served one at a time across replicas: an nth-call fault fires
// once, and the journal, its counts and the pets are the same whichever replica is asked.
import type pg from 'pg'
import { CoverageTally } from '../control/coverage-tally.js'
import type { Redactor } from '../control/redactor.js'
import type { Namespace } from '../control/namespace.js'
import { ERRORS, HttpError } from '../http/errors.js'
import { sameSource, sourceKey, type DataSource } from '../store/data-source.js'
import type { Pet, SharedPets } from '../store/pets.js'
import type { AnimalStore } from '../store/store.js'
import { unavailable, type Database } from './database.js'
import {
  insertPets,
  insertRecords,
  lockRow,
  revive,
  stored,
  type Row,
  type State,
  type StoredRecord,
} from './tables.js'

/** What a replica last took from or gave to the row, to tell what changed since. */
interface Synced {
  readonly incarnation: string
  readonly version: string
  readonly state: State
  readonly text: string
}

export interface SharingOptions {
  readonly database: Database
  /** The shared pets a namespace's pets start from. */
  readonly sharedPets: (source: DataSource) => Promise<SharedPets>
  /** What a request's entry may show: keys and tokens never reach the database. */
  readonly redactor: Redactor
}

export class Sharing {
  readonly database: Database
  readonly #sharedPets: SharingOptions['sharedPets']
  readonly #redactor: Redactor
  readonly #synced = new WeakMap<Namespace, Synced>()

  constructor({ database, sharedPets, redactor }: SharingOptions) {
    this.database = database
    this.#sharedPets = sharedPets
    this.#redactor = redactor
  }

  /**
   * Locks the namespace's row (made from `fresh` if there is none), brings the namespace up to date
   * with it, and gives the hold that writes back and commits. A 503 when the database is down.
   */
  async hold(namespace: Namespace, fresh: () => Namespace): Promise<Hold> {
    const client = await this.database.begin()
    try {
      let row = await lockRow(client, namespace.name)
      if (row === undefined) {
        // A name made again after a deletion starts as new; a name never synced here is new already.
        const template = this.#synced.has(namespace) ? fresh() : namespace
        const made = await client.query(
          'INSERT INTO namespaces (name, state) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          [namespace.name, JSON.stringify(await stateOf(template))],
        )
        if (made.rowCount === 1) await insertPets(client, namespace.name, (await template.store()).own)
        row = await lockRow(client, namespace.name)
        if (row === undefined) throw new Error(`namespace ${namespace.name} vanished while it was made`)
      }
      await this.#take(client, namespace, row)
      return new Hold(this, client, namespace)
    } catch (error) {
      this.#forget(namespace)
      await client.query('ROLLBACK').catch(() => undefined)
      client.release(true)
      throw unavailable(error)
    }
  }

  /** Whether the namespace exists in the database. */
  async exists(name: string): Promise<boolean> {
    const { rowCount } = await this.database.query('SELECT 1 FROM namespaces WHERE name = $1', [name])
    return rowCount === 1
  }

  /** Deletes a namespace with its pets and requests; false when there was none. */
  async delete(name: string): Promise<boolean> {
    const { rowCount } = await this.database.query('DELETE FROM namespaces WHERE name = $1', [name])
    return rowCount === 1
  }

  /** The namespaces that start from each source (by sourceKey). */
  async forks(): Promise<Map<string, string[]>> {
    const { rows } = await this.database.query<{ name: string; base: DataSource }>(
      "SELECT name, state -> 'base' AS base FROM namespaces WHERE state -> 'base' <> 'null'::jsonb ORDER BY incarnation",
    )
    const forks = new Map<string, string[]>()
    for (const { name, base } of rows) forks.set(sourceKey(base), [...(forks.get(sourceKey(base)) ?? []), name])
    return forks
  }

  /** Every namespace's name, oldest first. */
  async names(): Promise<string[]> {
    const { rows } = await this.database.query<{ name: string }>('SELECT name FROM namespaces ORDER BY incarnation')
    return rows.map((row) => row.name)
  }

  /** Takes what other replicas wrote since this one last held the namespace. */
  async #take(client: pg.PoolClient, namespace: Namespace, row: Row): Promise<void> {
    const synced = this.#synced.get(namespace)
    if (synced?.incarnation === row.incarnation && synced.version === row.version) return
    const { state } = row
    const same = synced?.incarnation === row.incarnation ? synced.state : undefined
    const store = await namespace.store()
    const newPets = same !== undefined && same.pets.generation === state.pets.generation
    if (!newPets || state.pets.lastId !== same.pets.lastId) {
      const after = newPets ? same.pets.lastId : 0
      const { rows } = await client.query<{ pet: Pet }>(
        'SELECT pet FROM pets WHERE namespace = $1 AND id > $2 ORDER BY id',
        [namespace.name, after],
      )
      const pets = rows.map((r) => r.pet)
      const base = state.base === null ? undefined : await this.#sharedPets(state.base)
      store.restore(
        { ...(state.source === null ? {} : { source: state.source }), pets: newPets ? [...store.own, ...pets] : pets },
        base,
      )
    }
    const newEntries = same !== undefined && same.journal.clears === state.journal.clears
    if (
      !newEntries ||
      state.journal.lastId !== same.journal.lastId ||
      state.journal.tally.calls !== same.journal.tally.calls
    ) {
      const after = newEntries ? same.journal.lastId : 0
      const { rows } = await client.query<{ id: string; record: StoredRecord }>(
        'SELECT id, record FROM requests WHERE namespace = $1 AND id > $2 ORDER BY id',
        [namespace.name, after],
      )
      const records = rows.map((r) => ({ id: Number(r.id), record: revive(r.record) }))
      namespace.journal.adopt(records, CoverageTally.load(state.journal.tally), state.journal.clears, !newEntries)
    }
    namespace.faults.restore(state.faults)
    namespace.clock.restore(state.clock)
    this.#remember(namespace, row.incarnation, row.version, state)
  }

  /** Writes what the request changed in the namespace, on the held row's connection. */
  async give(client: pg.PoolClient, namespace: Namespace): Promise<void> {
    const synced = this.#synced.get(namespace)
    if (synced === undefined) throw new Error(`namespace ${namespace.name} was not held`)
    const before = synced.state
    const store = await namespace.store()
    const own = store.own
    const { name } = namespace
    const added =
      sameSource(store.base, before.base ?? undefined) &&
      sameSource(store.source, before.source ?? undefined) &&
      own.length >= before.pets.count &&
      (before.pets.count === 0 || own[before.pets.count - 1]?.id === before.pets.lastId)
    // A snapshot it now starts from stays until this commits: a deletion waits, then sees it in use.
    if (store.base?.kind === 'snapshot' && !sameSource(store.base, before.base ?? undefined)) {
      const kept = await client.query('SELECT 1 FROM snapshots WHERE name = $1 FOR SHARE', [store.base.name])
      if (kept.rowCount !== 1) throw new HttpError(ERRORS.notFound, `No snapshot ${JSON.stringify(store.base.name)}`)
    }
    if (!added) await client.query('DELETE FROM pets WHERE namespace = $1', [name])
    await insertPets(client, name, added ? own.slice(before.pets.count) : own)
    const cleared = namespace.journal.clears !== before.journal.clears
    if (cleared) await client.query('DELETE FROM requests WHERE namespace = $1', [name])
    const records = namespace.journal.recordsAfter(cleared ? 0 : before.journal.lastId)
    await insertRecords(
      client,
      name,
      records.map((kept) => ({ id: kept.id, record: stored(kept.record, this.#redactor) })),
    )
    // The journal's bound: what this replica no longer keeps, no replica does.
    const oldest = namespace.journal.oldestId
    if (records.length > 0 && oldest !== undefined)
      await client.query('DELETE FROM requests WHERE namespace = $1 AND id < $2', [name, oldest])
    const state = await stateOf(namespace, added ? before.pets.generation : before.pets.generation + 1)
    const text = JSON.stringify(state)
    if (text === synced.text) return
    const { rows } = await client.query<{ version: string }>(
      'UPDATE namespaces SET state = $2, version = version + 1 WHERE name = $1 RETURNING version',
      [name, text],
    )
    const version = rows[0]?.version
    if (version === undefined) throw new Error(`namespace ${name} vanished while it was held`)
    this.#remember(namespace, synced.incarnation, version, state, text)
  }

  #remember(
    namespace: Namespace,
    incarnation: string,
    version: string,
    state: State,
    text = JSON.stringify(state),
  ): void {
    this.#synced.set(namespace, { incarnation, version, state, text })
  }

  /** After a failed write: the namespace is read whole from the database at its next hold. */
  #forget(namespace: Namespace): void {
    this.#synced.delete(namespace)
  }

  /** For Hold. */
  forget(namespace: Namespace): void {
    this.#forget(namespace)
  }
}

/** A namespace's row, locked until the request's answer is committed. */
export class Hold {
  readonly #sharing: Sharing
  readonly #client: pg.PoolClient
  readonly #namespace: Namespace
  #ended: Promise<void> | undefined

  constructor(sharing: Sharing, client: pg.PoolClient, namespace: Namespace) {
    this.#sharing = sharing
    this.#client = client
    this.#namespace = namespace
  }

  /** Writes back what changed and commits: the answer may go out once this resolves. */
  release(): Promise<void> {
    return (this.#ended ??= this.#commit())
  }

  /** Lets go without writing (the request failed): the namespace is read anew at its next hold. */
  abandon(): Promise<void> {
    return (this.#ended ??= this.#rollback())
  }

  async #commit(): Promise<void> {
    try {
      await this.#sharing.give(this.#client, this.#namespace)
      await this.#client.query('COMMIT')
      this.#client.release()
    } catch (error) {
      await this.#rollback()
      throw unavailable(error)
    }
  }

  async #rollback(): Promise<void> {
    this.#sharing.forget(this.#namespace)
    await this.#client.query('ROLLBACK').catch(() => undefined)
    this.#client.release(true)
  }
}

async function stateOf(namespace: Namespace, generation = 0): Promise<State> {
  const store: AnimalStore = await namespace.store()
  const own = store.own
  const { journal } = namespace
  return {
    source: store.source ?? null,
    base: store.base ?? null,
    pets: { generation, count: own.length, lastId: own.at(-1)?.id ?? 0 },
    faults: namespace.faults.dump(),
    clock: namespace.clock.dump(),
    journal: { clears: journal.clears, lastId: journal.lastId, tally: journal.tally.dump() },
  }
}
