// A real PostgreSQL server for the shared store's tests and the bench, from Debian's package: a new
// cluster in a temp folder, on a free loopback port, its Unix socket in that folder alone, fsync on.
// PostgreSQL refuses to run as root, so under root (as CI runs) it runs as the package's `postgres` user.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { chown, mkdtemp, open, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Client, type QueryResultRow } from 'pg'
import { endAtExit, freePort, onCore, waitFor } from './processes.js'

/** The newest major's programs, where Debian puts them: /usr/lib/postgresql/<major>/bin. */
function findBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : []
  return majors
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => join(root, major, 'bin'))
    .find((bin) => existsSync(join(bin, 'postgres')) && existsSync(join(bin, 'initdb')))
}

export const POSTGRES_BIN = findBin()

/** The role and database DATABASE_URL names; the harness's own calls go as the superuser over the socket. */
const DATABASE = 'animal_store'
const SUPERUSER = 'postgres'
/** The application_name of this helper's own connections, which `terminate` spares. */
const HARNESS = 'test-harness'
const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 30_000
/** A bound for one connection of this helper's, so that a start's wait stays bounded too. */
const CONNECT_TIMEOUT_MS = 5_000

export interface Postgres {
  /** postgres://animal_store:<password>@127.0.0.1:<port>/animal_store: what a user sets as DATABASE_URL. */
  readonly url: string
  readonly port: number
  /** The postmaster's PID, or undefined while the server is down. */
  readonly pid: number | undefined
  /** A query as the superuser in the store's database, on a connection of its own; the rows. */
  query<R extends QueryResultRow = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<R[]>
  /** Ends the backends of other clients (all, or those with this application_name); how many ended. */
  terminate(filter?: { applicationName?: string }): Promise<number>
  /** Fast shutdown: clients are cut, open transactions roll back, committed data stays. */
  stop(): Promise<void>
  /** Immediate shutdown, as a crash leaves it: no checkpoint, the next start replays the WAL. */
  kill(): Promise<void>
  /** Starts it again on the same port and data. */
  start(): Promise<void>
  /** stop(), then start(). */
  restart(): Promise<void>
  /** Ends it and removes its folder. */
  close(): Promise<void>
}

/** Who runs the server: `postgres` under root, else whoever runs the tests. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  // The user database itself, read rather than asked of a program a new machine may lack.
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres')
  if (entry === undefined)
    throw new Error("PostgreSQL does not run as root, and there is no user 'postgres' (Debian's package makes it)")
  return { uid: Number(entry[2]), gid: Number(entry[3]) }
}

/**
 * Starts a new PostgreSQL cluster with a password user owning a database, as `url` names them; on
 * CPU `core` (its backends too) when given. Call `close()` when done.
 */
export async function startPostgres({ core }: { core?: number } = {}): Promise<Postgres> {
  if (POSTGRES_BIN === undefined) throw new Error('PostgreSQL is not installed (Debian package postgresql)')
  const bin = POSTGRES_BIN
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-pg-'))
  const [data, logFile] = [join(dir, 'data'), join(dir, 'server.log')]
  const user = serverUser()
  if (user) await chown(dir, user.uid, user.gid)
  // Its own environment: PG* variables of the machine's must not reach the server.
  const options = { cwd: dir, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LC_ALL: 'C' }, ...user }
  const port = await freePort()
  const password = randomBytes(12).toString('hex')

  let server: { child: ChildProcess; exited: Promise<unknown> } | undefined
  const logTail = async (): Promise<string> =>
    (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-30).join('\n')

  const query = async <R extends QueryResultRow>(sql: string, values: unknown[] = [], database = DATABASE) => {
    const client = new Client({
      host: dir,
      port,
      user: SUPERUSER,
      database,
      application_name: HARNESS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    })
    // A connection cut while idle is reported as an 'error' event; the query's rejection says it already.
    client.on('error', () => undefined)
    await client.connect()
    try {
      return (await client.query<R>(sql, values)).rows
    } finally {
      await client.end().catch(() => undefined)
    }
  }

  const start = async (): Promise<void> => {
    if (server) return
    const log = await open(logFile, 'a')
    // fsync and synchronous_commit are PostgreSQL's defaults, said outright: the tests check that a
    // committed write survives. Small buffers start fast.
    const settings = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: dir,
      fsync: 'on',
      synchronous_commit: 'on',
      shared_buffers: '16MB',
    }
    const args = ['-D', data, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])]
    const child = spawn(...onCore(core, join(bin, 'postgres'), args), { ...options, stdio: ['ignore', log.fd, log.fd] })
    await log.close()
    endAtExit(child, 'SIGQUIT')
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
    server = { child, exited }
    const gone = (): boolean => child.exitCode !== null || child.signalCode !== null
    const failed = async (why: string): Promise<Error> => {
      if (!gone()) child.kill('SIGQUIT')
      await exited
      server = undefined
      return new Error(`PostgreSQL ${why}; the end of its log (${logFile}):\n${await logTail()}`)
    }
    try {
      await waitFor(async () => gone() || (await query('SELECT 1', [], 'postgres'), true), {
        what: `PostgreSQL to answer on port ${port}`,
        timeoutMs: START_TIMEOUT_MS,
      })
    } catch (error) {
      throw await failed((error as Error).message)
    }
    if (gone()) throw await failed(`exited (${String(await exited)}) while starting`)
  }

  /** Sends `signal` to the postmaster and waits (bounded) until it and every backend are gone. */
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (!server) return
    const { child, exited } = server
    child.kill(signal)
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    const ended = await exited
    clearTimeout(timer)
    server = undefined
    if (ended === 'SIGKILL') throw new Error(`PostgreSQL did not stop within ${STOP_TIMEOUT_MS} ms of ${signal}`)
  }

  const close = async (): Promise<void> => {
    await shutdown('SIGQUIT')
    await rm(dir, { recursive: true, force: true })
  }

  try {
    // Local connections (this helper's, over the socket) are trusted; TCP ones need the password.
    // initdb's own flush at the end guards the new files against a machine crash, which no test makes.
    const initdb = ['-D', data, '-U', SUPERUSER, '--auth-local=trust', '--auth-host=scram-sha-256']
    await promisify(execFile)(join(bin, 'initdb'), [...initdb, '--no-locale', '-E', 'UTF8', '--no-sync'], options)
    await start()
    await query(`CREATE ROLE ${DATABASE} LOGIN PASSWORD '${password}'`, [], 'postgres')
    await query(`CREATE DATABASE ${DATABASE} OWNER ${DATABASE}`, [], 'postgres')
  } catch (error) {
    await close()
    throw error
  }

  return {
    url: `postgres://${DATABASE}:${password}@127.0.0.1:${port}/${DATABASE}`,
    port,
    get pid() {
      return server?.child.pid
    },
    query,
    async terminate({ applicationName } = {}) {
      // pg_terminate_backend's timeout waits until each backend is gone.
      const ended = await query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid, 5000) AS ended FROM pg_stat_activity
         WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name <> $1
           AND ($2::text IS NULL OR application_name = $2)`,
        [HARNESS, applicationName ?? null],
      )
      return ended.filter((row) => row.ended).length
    },
    stop: () => shutdown('SIGINT'),
    kill: () => shutdown('SIGQUIT'),
    start,
    async restart() {
      await shutdown('SIGINT')
      await start()
    },
    close,
  }
}
