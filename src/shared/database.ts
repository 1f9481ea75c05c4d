// The PostgreSQL database replicas share (DATABASE_URL): a pool of connections, the schema brought
// up to date at start, and an outage turned into the 503 with Retry-After a client can wait out.
import type pg from 'pg'
import type { Logger } from 'pino'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { before, bounded, DATABASE_TIMEOUT_MS, OUTCOME_WITHIN_MS, STEPS_WITHIN_MS, stepTimeout } from './deadline.js'
import { MIGRATIONS } from './migrations.js'

/** Replicas starting together apply the migrations one at a time, under this advisory lock. */
const MIGRATION_LOCK = 4_010_043

/** A transaction left open (a bug, a replica that froze) is ended by the server after this: its row lock goes with it. */
const IDLE_IN_TRANSACTION_MS = 10_000

/** What the database is asked of a transaction begun, to ask again whether it committed once its connection is gone. */
export const WHICH_TRANSACTION = 'SELECT txid_current()::text AS xid, pg_postmaster_start_time()::text AS server'

/** A transaction as the database can be asked of it once its connection is gone. */
export interface Transaction {
  /** txid_current() */
  readonly xid: string
  /** pg_postmaster_start_time() as text: the life of the server that gave the id. */
  readonly server: string
}

export interface Database {
  /**
   * Runs `work` in a transaction on one connection: committed when it resolves, rolled back when it
   * throws, or once `due` passes before its COMMIT is sent. A commit whose connection was cut is
   * answered as the database says it ended.
   */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>, due?: number): Promise<T>
  /** One connection of the pool, within the time left before `due`, for a transaction of the caller's; it releases it. */
  connect(due?: number): Promise<pg.PoolClient>
  /** One statement, answered within stepTimeout(due). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    due?: number,
  ): Promise<pg.QueryResult<R>>
  /**
   * Whether the transaction committed, asked on another connection after its own was cut: undefined
   * when the database does not say within OUTCOME_WITHIN_MS, or cannot (outcome()). A transaction
   * whose backend has not yet seen its connection go is 'in progress' a moment longer.
   */
  committed(transaction: Transaction): Promise<boolean | undefined>
  /** Resolves when the database answers within DATABASE_TIMEOUT_MS, on a connection of its own (GET /readyz). */
  ping(): Promise<void>
  close(): Promise<void>
}

export async function openDatabase(url: string, logger: Pick<Logger, 'warn' | 'info'>): Promise<Database> {
  // Loaded only here: a sandbox on its data file never pays for the client's start.
  const { default: pg } = await import('pg')
  // Every wait bounded on both sides: the client gives up on a connection or an answer, the server
  // on a statement, a lock wait and a transaction left idle; each is answered 503 (unavailable()).
  const bounds = {
    connectionString: url,
    connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
    query_timeout: DATABASE_TIMEOUT_MS,
    statement_timeout: DATABASE_TIMEOUT_MS,
    lock_timeout: DATABASE_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
  }
  const pool = new pg.Pool({ ...bounds, max: 20 })
  // Readiness is asked on a connection of its own: a pool busy with requests is not a database away.
  const probe = new pg.Pool({ ...bounds, max: 1 })
  // A connection the server dropped (a restart, a failover) is an event, not a crash: idle, the pool
  // says so; in use, the connection itself does, and its query fails (answered 503).
  const lost = (error: Error): void =>
    logger.warn({ reason: error.message }, 'database connection lost; the next request opens another')
  pool.on('error', lost)
  pool.on('connect', (client) => client.on('error', lost))
  probe.on('error', () => undefined)
  probe.on('connect', (client) => client.on('error', () => undefined))
  try {
    await whenUp(() =>
      migrate(new pg.Client({ connectionString: url, connectionTimeoutMillis: START_WAIT_MS }), logger),
    )
  } catch (error) {
    await Promise.all([pool.end(), probe.end()])
    throw error
  }
  const database: Database = {
    connect: (due) => unavailableIfDown(connectWithin(pool, due)),
    async transaction(work, due = performance.now() + STEPS_WITHIN_MS) {
      const client = await database.connect(due)
      // Once COMMIT is sent: the transaction, and what `work` gave.
      let committing: { transaction: Transaction; result: Awaited<ReturnType<typeof work>> } | undefined
      try {
        const [, begun] = (await client.query(
          bounded(`BEGIN; ${WHICH_TRANSACTION}`, due),
        )) as unknown as pg.QueryResult[]
        committing = { transaction: begun?.rows[0] as Transaction, result: await before(due, work(client)) }
        await client.query(bounded('COMMIT', due))
        client.release()
        return committing.result
      } catch (error) {
        const outage = isOutage(error)
        if (!outage) await client.query('ROLLBACK').catch(() => undefined)
        client.release(true)
        const committed = outage && committing !== undefined ? await database.committed(committing.transaction) : false
        if (committed === true && committing !== undefined) return committing.result
        throw committed === undefined ? unknownOutcome() : unavailable(error)
      }
    },
    query: (text, values, due) =>
      unavailableIfDown(Promise.resolve().then(() => pool.query({ ...bounded(text, due), values }))),
    async committed(transaction) {
      const deadline = performance.now() + OUTCOME_WITHIN_MS
      do {
        const asked = pool
          .query<{ status: string | null; server: string }>(
            'SELECT txid_status($1) AS status, pg_postmaster_start_time()::text AS server',
            [transaction.xid],
          )
          .then(
            ({ rows }) => outcome(transaction, rows[0]),
            (error: unknown) => ((error as { code?: unknown }).code === INVALID_PARAMETER ? false : IN_PROGRESS),
          )
        let timer: NodeJS.Timeout | undefined
        const late = new Promise<typeof IN_PROGRESS>((resolve) => {
          timer = setTimeout(resolve, Math.max(0, deadline - performance.now()), IN_PROGRESS)
        })
        const said = await Promise.race([asked, late]).finally(() => clearTimeout(timer))
        if (said !== IN_PROGRESS) return said
        await new Promise((resolve) => setTimeout(resolve, 50))
      } while (performance.now() < deadline)
      return undefined
    },
    ping: () => unavailableIfDown(probe.query('SELECT 1')).then(() => undefined),
    close: async () => void (await Promise.all([pool.end(), probe.end()])),
  }
  return database
}

/** A connection of `pool` within the time left before `due`; one that comes later goes back to the pool. */
async function connectWithin(pool: pg.Pool, due: number | undefined): Promise<pg.PoolClient> {
  const timeoutMs = stepTimeout(due)
  const connecting = pool.connect()
  if (timeoutMs >= DATABASE_TIMEOUT_MS) return connecting
  return before(due, connecting).catch((error: unknown) => {
    connecting.then(
      (client) => client.release(),
      () => undefined,
    )
    throw error
  })
}

const IN_PROGRESS = 'in progress'
/** txid_status's error for an id past any the server gave since it started. */
const INVALID_PARAMETER = '22023'

/**
 * What txid_status said of `transaction` means: whether it committed, undefined when that cannot
 * be known, IN_PROGRESS to ask again. A crash makes PostgreSQL give again the ids of transactions
 * none of whose writes reached the disk: once the server restarted, an id given again (in progress,
 * or past those given, the error) or aborted is a transaction lost with the crash, and a commit may
 * be another's.
 */
function outcome(
  { server }: Transaction,
  said: { status: string | null; server: string } | undefined,
): boolean | undefined | typeof IN_PROGRESS {
  if (said === undefined) return IN_PROGRESS
  const { status } = said
  if (said.server !== server) return status === 'committed' ? undefined : false
  if (status === null) return undefined
  return status === IN_PROGRESS ? IN_PROGRESS : status === 'committed'
}

/** How long a start waits for its database: to connect, or while the server says it is starting up. */
const START_WAIT_MS = 30_000

/**
 * `work`, tried again while the server says it is starting up or shutting down (a restart under
 * way: SQLSTATE 57P03), for START_WAIT_MS at most. A host that refuses or an unknown database is
 * a setting to fix, not a wait: the start stops at once.
 */
async function whenUp(work: () => Promise<void>): Promise<void> {
  const until = performance.now() + START_WAIT_MS
  for (;;) {
    try {
      return await work()
    } catch (error) {
      if ((error as { code?: unknown }).code !== '57P03' || performance.now() >= until) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
}

/** Unbounded but for the connection: replicas started together wait for each other's migration. */
async function migrate(client: pg.Client, logger: Pick<Logger, 'info'>): Promise<void> {
  client.on('error', () => undefined)
  await client.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    await client.query(
      'CREATE TABLE IF NOT EXISTS migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    )
    const { rows } = await client.query<{ version: number }>('SELECT version FROM migrations')
    const applied = new Set(rows.map((row) => row.version))
    const known = Math.max(...MIGRATIONS.map((m) => m.version))
    const newer = [...applied].filter((version) => version > known)
    if (newer.length > 0)
      throw new DatabaseTooNew(
        `DATABASE_URL holds schema version ${Math.max(...newer)}, newer than this sandbox knows (${known}): run the newer sandbox, or another database`,
      )
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue
      await client.query('BEGIN')
      try {
        await client.query(migration.sql)
        await client.query('INSERT INTO migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ])
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK')
        throw error
      }
      logger.info({ version: migration.version, migration: migration.name }, 'database migrated')
    }
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** A database whose schema is newer than this code: the start stops rather than guess. */
export class DatabaseTooNew extends Error {}

/**
 * The Error body of a request the database could not serve, when it was down or cut the connection
 * (nothing was changed: try again); any other error is a bug and is left as it is.
 */
export function unavailable(error: unknown): unknown {
  if (error instanceof HttpError || !isOutage(error)) return error
  return new HttpError(
    ERRORS.storageUnavailable,
    `The database could not be reached; nothing was changed: ${(error as Error).message}`,
    RETRY_AFTER,
  )
}

/** A hold that makes no namespace found none. */
export function noNamespace(name: string): HttpError {
  return new HttpError(ERRORS.notFound, `Namespace ${JSON.stringify(name)} does not exist`)
}

/** A commit whose connection was lost on its way, and whose outcome the database could not tell. */
export function unknownOutcome(): HttpError {
  return new HttpError(
    ERRORS.storageUnavailable,
    `The connection to the database was lost as the change was committed, and the database could not say whether it was stored (it restarted meanwhile, or did not answer within ${OUTCOME_WITHIN_MS} ms): read it back before trying again (a create sent again with the same Idempotency-Key is never stored twice)`,
  )
}

/**
 * A connection refused, cut or timed out, the server shutting down or full (SQLSTATE 08, 57P, 53),
 * or one of the bounds of a stalled database: a statement or lock wait cancelled (57014, 55P03), a
 * transaction left idle ended (25P03).
 */
export function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') return /^(08|57P|53|E[A-Z]+|57014|55P03|25P03)/.test(code)
  return /Connection terminated|timeout|not queryable|Client has encountered a connection error/i.test(error.message)
}

function unavailableIfDown<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    throw unavailable(error)
  })
}
