// The entries other replicas handed to the namespaces this replica owns (table handed_entries).
// A row leaves the table only in the transaction that writes its entry into the journal, so a
// cut, an unknown outcome or a crash of the owner never loses it: until then the owner keeps the
// entry in memory by its row's id, and a reading of the table skips the ids it keeps. The owner
// reads the table every TAKE_EVERY_MS and with each batch; the namespace's next hold here (a
// request, or the flush of kept entries within a second) journals what it read. Without the
// periodic reading, an owner whose namespace is only read through the control API commits no
// batch, and its journal and `verify` would miss the entries however long they were asked.
import type pg from 'pg'
import type { Logger } from 'pino'
import type { RequestRecord } from '../journal/request-record.js'
import { isOutage, type Database } from './database.js'
import type { Leases } from './leases.js'
import { revive, type HandedRow, type StoredRecord } from './tables.js'

const TAKE_EVERY_MS = 500

/**
 * The handed entries this replica keeps for its journals, by their row's id. Once recorded in a
 * journal in memory, an entry is no longer kept as such: the next change of its namespace deletes
 * its row (`recordedRows`), whether the journal still holds the entry or only counts it. Should
 * that change fail, its ids are let go, and the rows (there unless the change took) read anew.
 */
export class HandedIds {
  readonly #idOf = new WeakMap<RequestRecord, string>()
  readonly #kept = new Map<string, Set<string>>()
  /** Per namespace, how often ids were let go: a reading begun before may hold rows gone since. */
  readonly #lettings = new Map<string, number>()
  /** The entries recorded in a journal, and per namespace the ids of those its next change takes. */
  readonly #recorded = new WeakSet<RequestRecord>()
  readonly #forNextChange = new Map<string, Set<string>>()

  idOf(entry: RequestRecord): string | undefined {
    return this.#idOf.get(entry)
  }

  lettings(name: string): number {
    return this.#lettings.get(name) ?? 0
  }

  /**
   * The entries of `rows` not kept here yet, kept from now; none when ids were let go since
   * `lettings`. A transaction of the namespace's hold reads in its turn, when nothing is let go.
   */
  fresh(name: string, rows: readonly HandedRow[], lettings = this.lettings(name)): RequestRecord[] {
    if (this.lettings(name) !== lettings) return []
    let kept = this.#kept.get(name)
    if (kept === undefined) this.#kept.set(name, (kept = new Set()))
    const fresh: RequestRecord[] = []
    for (const { id, record } of rows) {
      if (kept.has(id)) continue
      kept.add(id)
      const entry = revive(record)
      this.#idOf.set(entry, id)
      fresh.push(entry)
    }
    return fresh
  }

  /** The entries of `ids` are no longer kept here: journaled, found journaled, or handed back. */
  letGo(name: string, ids: readonly string[]): void {
    const kept = this.#kept.get(name)
    if (kept === undefined || ids.length === 0) return
    for (const id of ids) {
      kept.delete(id)
      this.#forNextChange.get(name)?.delete(id)
    }
    if (kept.size === 0) this.#kept.delete(name)
    this.#lettings.set(name, this.lettings(name) + 1)
  }

  /** `entry` was recorded in namespace `name`'s journal in memory: its row goes with the next change. */
  recorded(name: string, entry: RequestRecord): void {
    const id = this.#idOf.get(entry)
    if (id === undefined) return
    this.#recorded.add(entry)
    let ids = this.#forNextChange.get(name)
    if (ids === undefined) this.#forNextChange.set(name, (ids = new Set()))
    ids.add(id)
  }

  /** The rows of the entries recorded since the last change of `name`: this change deletes them. */
  recordedRows(name: string): string[] {
    const ids = [...(this.#forNextChange.get(name) ?? [])]
    this.#forNextChange.delete(name)
    return ids
  }

  /** Whether `entry` was recorded: given back to be kept (its change failed), it is let go, its row read anew. */
  wasRecorded(entry: RequestRecord): boolean {
    return this.#recorded.has(entry)
  }

  /** The row ids of those of `entries` that were handed. */
  ids(entries: readonly RequestRecord[]): string[] {
    return entries.flatMap((entry) => this.#idOf.get(entry) ?? [])
  }
}

/** Reads handed entries each TAKE_EVERY_MS until the function it gives is called (the timer keeps nothing alive). */
export function takeHanded(
  database: Database,
  leases: Leases,
  handed: HandedIds,
  keep: (name: string, ...entries: RequestRecord[]) => void,
  logger: Pick<Logger, 'warn'>,
): () => void {
  let taking = false
  const take = async (): Promise<void> => {
    const names = leases.held()
    if (taking || names.length === 0) return
    taking = true
    try {
      const lettings = new Map(names.map((name) => [name, handed.lettings(name)]))
      const { rows } = await database.query<HandedRow & { namespace: string }>(
        'SELECT namespace, id, record FROM handed_entries WHERE namespace = ANY($1::text[]) ORDER BY id',
        [names],
      )
      const byName = new Map<string, HandedRow[]>()
      for (const row of rows) byName.set(row.namespace, [...(byName.get(row.namespace) ?? []), row])
      for (const [name, read] of byName) keep(name, ...handed.fresh(name, read, lettings.get(name) ?? 0))
    } catch (error) {
      // The database away: the entries stay in the table, for the next try or a batch.
      if (!isOutage(error))
        logger.warn({ err: error }, 'entries handed to this replica could not be read: the next try reads them')
    } finally {
      taking = false
    }
  }
  const timer = setInterval(() => void take(), TAKE_EVERY_MS).unref()
  return () => clearInterval(timer)
}

/**
 * Hands entries to the journal of namespace `name`, whose owner takes them (in the transaction
 * under way). An entry handed before keeps its row's id: handed again, it is there once.
 */
export async function hand(
  client: pg.PoolClient,
  name: string,
  entries: readonly { id: string | undefined; record: StoredRecord }[],
): Promise<void> {
  const again = entries.filter(({ id }) => id !== undefined)
  const first = entries.filter(({ id }) => id === undefined).map(({ record }) => record)
  if (first.length > 0)
    await client.query(
      'INSERT INTO handed_entries (namespace, record) SELECT $1, r FROM jsonb_array_elements($2::jsonb) AS r',
      [name, JSON.stringify(first)],
    )
  if (again.length > 0)
    await client.query(
      `INSERT INTO handed_entries (namespace, id, record) OVERRIDING SYSTEM VALUE
       SELECT $1, (r ->> 'id')::bigint, r -> 'record' FROM jsonb_array_elements($2::jsonb) AS r
       ON CONFLICT (namespace, id) DO NOTHING`,
      [name, JSON.stringify(again)],
    )
}
