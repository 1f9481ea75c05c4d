// A namespace's rows in the shared database: its row locked for a request, and its pets and
// requests written and read as the tables hold them.
import type pg from 'pg'
import { MAX_RECORDED_BODY, type Redactor } from '../control/redactor.js'
import type { RequestRecord } from '../control/request-record.js'
import type { Pet } from '../store/pets.js'
import type { TallyData } from '../control/coverage-tally.js'
import type { Fault } from '../control/faults.js'
import type { DataSource } from '../store/data-source.js'

/** The row's `state`: all the namespace holds but its pets and requests, which have tables. */
export interface State {
  readonly source: DataSource | null
  readonly base: DataSource | null
  /** `generation` grows when the pets are replaced rather than added to. */
  readonly pets: { readonly generation: number; readonly count: number; readonly lastId: number }
  readonly faults: { readonly nextId: number; readonly faults: Fault[] }
  readonly clock: { readonly offset: number | null; readonly moved: boolean }
  readonly journal: { readonly clears: number; readonly lastId: number; readonly tally: TallyData }
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

export async function lockRow(client: pg.PoolClient, name: string): Promise<Row | undefined> {
  const { rows } = await client.query<Row>(
    'SELECT incarnation, version, state FROM namespaces WHERE name = $1 FOR UPDATE',
    [name],
  )
  return rows[0]
}

export async function insertPets(client: pg.PoolClient, name: string, pets: readonly Pet[]): Promise<void> {
  if (pets.length === 0) return
  await client.query(
    "INSERT INTO pets (namespace, id, pet) SELECT $1, (p ->> 'id')::bigint, p FROM jsonb_array_elements($2::jsonb) AS p",
    [name, JSON.stringify(pets)],
  )
}

/** A request as the database keeps it: redacted as the journal shows it, its body cut as the journal keeps it. */
export function stored(record: RequestRecord, redactor: Redactor): StoredRecord {
  const body = record.body?.subarray(0, MAX_RECORDED_BODY + 1)
  const { error } = record
  return {
    ...record,
    path: redactor.text(record.path),
    search: redactor.text(record.search),
    headers: redactor.headers(record.headers),
    body: body === undefined ? null : Buffer.from(redactor.text(body.toString('utf8'))).toString('base64'),
    error: error === undefined ? undefined : { code: error.code, message: redactor.text(error.message) },
  }
}

export async function insertRecords(
  client: pg.PoolClient,
  name: string,
  records: readonly { id: number; record: StoredRecord }[],
): Promise<void> {
  if (records.length === 0) return
  await client.query(
    "INSERT INTO requests (namespace, id, record) SELECT $1, (r ->> 'id')::bigint, r -> 'record' FROM jsonb_array_elements($2::jsonb) AS r ON CONFLICT DO NOTHING",
    [name, JSON.stringify(records)],
  )
}

export function revive(stored: StoredRecord): RequestRecord {
  return { ...stored, body: stored.body === null ? undefined : Buffer.from(stored.body, 'base64') }
}
