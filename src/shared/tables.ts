// A namespace's rows in the shared database: its row locked for a request, and its pets and
// requests written and read as the tables hold them.
import type pg from 'pg'
import { ERRORS, HttpError } from '../http/errors.js'
import type { RequestRecord } from '../journal/request-record.js'
import type { Pet } from '../store/pets.js'
import type { IdempotencyKey } from '../store/idempotency-keys.js'
import type { TallyData } from '../journal/coverage-tally.js'
import type { Fault } from '../namespaces/faults.js'
import type { Baseline } from '../store/baseline.js'
import { WHICH_TRANSACTION, type Transaction } from './database.js'
import { bounded } from './deadline.js'
import type { Lease } from './leases.js'
import { countAgainst, type Quota } from './quota.js'

/** The row's `state`: all the namespace holds but its pets and requests, which have tables. */
export interface State {
  readonly source: Baseline | null
  readonly base: Baseline | null
  /** `generation` grows when the pets are replaced rather than added to. */
  readonly pets: { readonly generation: number; readonly count: number; readonly lastId: number }
  readonly faults: { readonly nextId: number; readonly faults: Fault[] }
  readonly clock: { readonly offset: number | null; readonly moved: boolean }
  readonly journal: {
    readonly clears: number
    /** When it was last cleared, by the clock of the replica that cleared it (absent in rows of before). */
    readonly clearedAt?: number
    readonly lastId: number
    readonly oldestId: number | null
    readonly tally: TallyData
  }
}

/** A state as the row keeps it, made once a state: a state is a snapshot that nothing changes. */
const texts = new WeakMap<State, string>()
export function stateText(state: State): string {
  let known = texts.get(state)
  if (known === undefined) texts.set(state, (known = JSON.stringify(state)))
  return known
}

/** A request as the database keeps it: its body in base64. */
export interface StoredRecord extends Omit<RequestRecord, 'body'> {
  readonly body: string | null
}

export interface Row {
  readonly incarnation: string
  readonly version: string
  readonly state: State
}

/** The key of the create that made a pet, if it sent one and it is kept. */
export type KeyOf = (id: number) => IdempotencyKey | undefined

/** Makes a namespace's row with its pets, counted against its quota, unless another replica made it first. */
export async function createRow(
  client: pg.PoolClient,
  name: string,
  state: string,
  pets: readonly Pet[],
  keyOf: KeyOf,
  quota: Quota | undefined,
): Promise<void> {
  if (quota !== undefined) await countAgainst(client, name, quota)
  const made = await client.query(
    'INSERT INTO namespaces (name, state, owner) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
    [name, state, quota?.owner ?? null],
  )
  const rows = pets.map((pet) => petRow(pet, keyOf))
  if (made.rowCount === 1 && rows.length > 0) await many(client, [insertPetRows(name, rows)])
}

/** When namespace `name` was last deleted (epoch ms, the database's clock), if ever. */
export async function deletedAt(client: pg.PoolClient, name: string): Promise<number | undefined> {
  const { rows } = await client.query<{ at: string }>(
    'SELECT extract(epoch FROM deleted_at) * 1000 AS at FROM deleted_namespaces WHERE name = $1',
    [name],
  )
  return rows[0] === undefined ? undefined : Number(rows[0].at)
}

/** A row of handed_entries: an entry another replica handed to the namespace's owner. */
export interface HandedRow {
  readonly id: string
  readonly record: StoredRecord
}

/** A transaction begun by an owner, with the entries other replicas handed to its namespace. */
export type Begun = Transaction & { handed: HandedRow[] }

/**
 * Begins a transaction that locks nothing yet, as the owner of a namespace does, reading the
 * entries other replicas handed to the namespace's journal (gone once a commit journals them).
 */
export async function begin(client: pg.PoolClient, name: string, due: number | undefined): Promise<Begun> {
  const handed = `SELECT id, record FROM handed_entries WHERE namespace = ${literal(name)} ORDER BY id`
  const [, transaction, rows] = await many(client, ['BEGIN', WHICH_TRANSACTION, handed], due)
  return { ...(transaction?.rows[0] as Transaction), handed: (rows?.rows ?? []) as HandedRow[] }
}

/** What the one round trip that locks a namespace's row reads with it: the pets and requests after those given. */
export interface Locked {
  readonly row: Row | undefined
  /** Whether the transaction committed can be asked of the database after its connection is cut. */
  readonly transaction: Transaction
  readonly pets: Pet[]
  /** The Idempotency-Keys of those pets' creates. */
  readonly keys: IdempotencyKey[]
  readonly records: { id: number; record: RequestRecord }[]
}

/** The ids after which pets and requests are read: those a replica has already. */
export interface After {
  readonly pets: number
  readonly requests: number
}

/**
 * Locks the row (beginning the transaction, with `begin`) and reads what was added after `after`,
 * in one round trip: the statements run in order, so the reads see the row's latest commit.
 */
export async function lockAndRead(client: pg.PoolClient, name: string, after: After, begin: boolean): Promise<Locked> {
  const results = await many(client, [
    ...(begin ? ['BEGIN'] : []),
    `SELECT incarnation, version, state FROM namespaces WHERE name = ${literal(name)} FOR UPDATE`,
    WHICH_TRANSACTION,
    ...reads(name, after),
  ])
  const [row, transaction, pets, requests] = results.slice(begin ? 1 : 0)
  return {
    row: row?.rows[0] as Row | undefined,
    transaction: transaction?.rows[0] as Transaction,
    ...readResults(pets, requests),
  }
}

/** The pets and requests after `after`, in the transaction under way. */
export async function readAfter(client: pg.PoolClient, name: string, after: After): Promise<Read> {
  const [pets, requests] = await many(client, reads(name, after))
  return readResults(pets, requests)
}

function reads(name: string, after: After): string[] {
  const named = literal(name)
  return [
    `SELECT pet, idempotency_key FROM pets WHERE namespace = ${named} AND id > ${whole(after.pets)} ORDER BY id`,
    `SELECT id, record FROM requests WHERE namespace = ${named} AND id > ${whole(after.requests)} ORDER BY id`,
  ]
}

type Read = Omit<Locked, 'row' | 'transaction'>

function readResults(pets: pg.QueryResult | undefined, requests: pg.QueryResult | undefined): Read {
  return {
    pets: (pets?.rows ?? []).map((r: { pet: Pet }) => r.pet),
    keys: (pets?.rows ?? []).flatMap((r: { idempotency_key: IdempotencyKey | null }) => r.idempotency_key ?? []),
    records: (requests?.rows ?? []).map((r: { id: string; record: StoredRecord }) => ({
      id: Number(r.id),
      record: revive(r.record),
    })),
  }
}

/** What a request changed in a namespace, to be written back and committed. */
export interface Change {
  /** The owner's lease: the transaction commits only while its epoch is current. */
  readonly fence: Lease | undefined
  /** The pets to add; all of them, in place of those stored, with `replace`. */
  readonly pets: readonly Pet[]
  readonly keyOf: KeyOf
  readonly replacePets: boolean
  /** The requests to add; all of them, in place of those stored, with `replaceRecords`. */
  readonly records: readonly { id: number; record: StoredRecord }[]
  readonly replaceRecords: boolean
  /** Requests older than this one are no longer kept. */
  readonly keepFrom: number | undefined
  /**
   * Requests older than this one are gone already (the bound the row held before): the deletion
   * starts there, rather than walking the index over every row deleted before and not yet vacuumed.
   */
  readonly keptFrom: number
  /** The row's new state; undefined when it did not change, or when a later change of its batch writes its own. */
  readonly state: State | undefined
  /** How many changes of the row's state it stands for: its own, and those it took over from its batch's earlier changes. */
  readonly states: number
  /** False when nothing a client was told is stored changed (only the journal and the calls faults have seen): no wait for the disk. */
  readonly durable: boolean
  /** The rows of the handed entries recorded in the journal: they leave the table as the change commits. */
  readonly handed: readonly string[]
}

/**
 * Writes `changes` in order and commits, in one round trip (a batch of an owner's requests: one
 * flush of the disk for them all, none when no change is durable), by `due`; the row's version
 * after them when one changed its state (undefined when none did).
 */
export async function commitChanges(
  client: pg.PoolClient,
  name: string,
  fence: Lease | undefined,
  changes: readonly Change[],
  due?: number,
): Promise<string | undefined> {
  const named = literal(name)
  const statements = changes.some((change) => change.durable) ? [] : ['SET LOCAL synchronous_commit TO OFF']
  if (fence !== undefined)
    statements.push(`SELECT fence(${named}, ${literal(fence.owner)}, ${whole(Number(fence.epoch))})`)
  statements.push(...writes(name, changes))
  // The row takes the last state only, its version counting every change of state, as memory does.
  const state = changes.findLast((change) => change.state !== undefined)?.state
  const states = changes.reduce((count, change) => count + change.states, 0)
  if (state !== undefined)
    statements.push(
      `UPDATE namespaces SET state = ${literal(stateText(state))}, version = version + ${states} WHERE name = ${named} RETURNING version`,
    )
  const updated = statements.length - 1
  // After the row's lock (an entry journaled changes the state): a replica that hands an entry
  // again under that lock finds its row still there, and adds nothing.
  const handed = changes.flatMap((change) => change.handed.map(Number).map(whole))
  if (handed.length > 0)
    statements.push(`DELETE FROM handed_entries WHERE namespace = ${named} AND id IN (${handed.join(', ')})`)
  const results = await many(client, [...statements, 'COMMIT'], due)
  if (state === undefined) return undefined
  const version = (results[updated]?.rows[0] as { version: string } | undefined)?.version
  if (version === undefined) throw new Error(`namespace ${name} vanished while it was held`)
  return version
}

/** The writes of `changes` as few statements: what a later change replaces, an earlier one need not write. */
function writes(name: string, changes: readonly Change[]): string[] {
  const named = literal(name)
  const petsFrom = changes.findLastIndex((change) => change.replacePets)
  const recordsFrom = changes.findLastIndex((change) => change.replaceRecords)
  const pets = changes.slice(Math.max(petsFrom, 0)).flatMap(({ pets, keyOf }) => pets.map((pet) => petRow(pet, keyOf)))
  const trims = changes.filter((change) => change.keepFrom !== undefined)
  const keepFrom = Math.max(0, ...trims.map((change) => change.keepFrom ?? 0))
  const keptFrom = Math.min(...trims.map((change) => change.keptFrom))
  // Entries the journal dropped since are not written: a batch of many reads writes JOURNAL_SIZE at most.
  const records = changes.slice(Math.max(recordsFrom, 0)).flatMap((c) => c.records.filter(({ id }) => id >= keepFrom))
  const statements: string[] = []
  if (petsFrom >= 0) statements.push(`DELETE FROM pets WHERE namespace = ${named}`)
  if (pets.length > 0) statements.push(insertPetRows(name, pets))
  if (recordsFrom >= 0) statements.push(`DELETE FROM requests WHERE namespace = ${named}`)
  if (records.length > 0)
    statements.push(
      `INSERT INTO requests (namespace, id, record) SELECT ${named}, (r ->> 'id')::bigint, r -> 'record' FROM jsonb_array_elements(${literal(JSON.stringify(records))}::jsonb) AS r`,
    )
  if (keepFrom > 0)
    statements.push(
      `DELETE FROM requests WHERE namespace = ${named} AND id >= ${whole(keptFrom)} AND id < ${whole(keepFrom)}`,
    )
  return statements
}

/** A pet with its create's key in the same row: the key is stored exactly when its pet is. */
const petRow = (pet: Pet, keyOf: KeyOf) => ({ pet, key: keyOf(pet.id) ?? null })

function insertPetRows(name: string, rows: readonly ReturnType<typeof petRow>[]): string {
  const [named, json] = [literal(name), literal(JSON.stringify(rows))]
  return `INSERT INTO pets (namespace, id, pet, idempotency_key) SELECT ${named}, (r -> 'pet' ->> 'id')::bigint, r -> 'pet', NULLIF(r -> 'key', 'null') FROM jsonb_array_elements(${json}::jsonb) AS r`
}

/**
 * `text` as an SQL string literal, for the statements sent together in one round trip (which take
 * no parameters). pg's escapeLiteral adds a character at a time: a batch's JSON of hundreds of
 * entries became as many strings for the collector.
 */
export function literal(text: string): string {
  const quoted = `'${text.replaceAll("'", "''")}'`
  return text.includes('\\') ? `E${quoted.replaceAll('\\', '\\\\')}` : quoted
}

/** Several statements in one round trip (the simple query protocol), each one's result; answered by `due`. */
async function many(client: pg.PoolClient, statements: readonly string[], due?: number): Promise<pg.QueryResult[]> {
  const result = (await client.query(bounded(statements.join(';\n'), due))) as pg.QueryResult | pg.QueryResult[]
  return Array.isArray(result) ? result : [result]
}

/** A whole number written into a statement: never anything else. */
function whole(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not a whole number: ${n}`)
  return String(n)
}

export function revive(stored: StoredRecord): RequestRecord {
  return { ...stored, body: stored.body === null ? undefined : Buffer.from(stored.body, 'base64') }
}

/** A snapshot the pets now start from stays until this commits: a deletion waits, then sees it in use. */
export async function keepSnapshot(client: pg.PoolClient, name: string): Promise<void> {
  const kept = await client.query('SELECT 1 FROM snapshots WHERE name = $1 FOR SHARE', [name])
  if (kept.rowCount !== 1) throw new HttpError(ERRORS.notFound, `No snapshot ${JSON.stringify(name)}`)
}
