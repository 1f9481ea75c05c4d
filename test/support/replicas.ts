// Sandbox replicas sharing one PostgreSQL database (DATABASE_URL), behind a real HAProxy: what a
// shared sandbox runs as. Each replica is the built command in a process of its own, named in the
// database by its application_name (replica-1…), so that a test can cut its connections alone.
import type { Test } from 'tap'
import { startHaproxy, type Haproxy } from './haproxy.js'
import type { Postgres } from './postgres.js'
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy.js'
import { startRelay } from './relay.js'
import { buildCli, spawnCli, type RunningCli } from './sandbox.js'

export const KEY = 'shared-key'
export const TOKEN = 'shared-admin-token'
export const API = { authorization: `Bearer ${KEY}` }
export const ADMIN = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }

export interface Replicas {
  /** Each replica's origin, e.g. http://127.0.0.1:41234. */
  readonly origins: string[]
  readonly processes: RunningCli[]
  readonly balancer: Haproxy
  /** The balancer's origin. */
  readonly url: string
}

/** The URL a replica is given: the database's, naming the replica as its application_name. */
export function replicaUrl(db: Postgres, n: number): string {
  const url = new URL(db.url)
  url.searchParams.set('application_name', `replica-${n}`)
  return url.href
}

export async function startReplicas(
  t: Test,
  db: Postgres,
  cli: string,
  count = 3,
  env: Record<string, string> = {},
): Promise<Replicas> {
  const processes = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      spawnCli(
        t,
        { DATABASE_URL: replicaUrl(db, i + 1), API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...env },
        [],
        cli,
      ),
    ),
  )
  const origins = processes.map((p) => new URL(p.baseUrl).origin)
  const balancer = await startHaproxy(origins, t)
  return { origins, processes, balancer, url: balancer.url }
}

/** A JSON call with a bound on its time; the status and the parsed body (null when none). */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: init.headers ?? API,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(20_000),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text), headers: res.headers }
}

/** One replica whose connections to the database go through a proxy the test can cut. */
export async function replicaThroughProxy(t: Test, db: Postgres): Promise<{ proxy: CuttingProxy; origin: string }> {
  const proxy = await startCuttingProxy(t, db.port)
  const url = new URL(db.url)
  url.port = String(proxy.port)
  const replica = await spawnCli(
    t,
    { DATABASE_URL: url.href, API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
    [],
    await buildCli(t),
  )
  return { proxy, origin: new URL(replica.baseUrl).origin }
}

/** One replica whose connections to the database go through a relay the test can cut or hold back. */
export async function replicaThroughRelay(t: Test, db: Postgres, cli: string, env: Record<string, string> = {}) {
  const relay = await startRelay(t, db.port)
  const url = new URL(db.url)
  url.port = String(relay.port)
  const replica = await spawnCli(
    t,
    { DATABASE_URL: url.href, API_KEYS: KEY, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...env },
    [],
    cli,
  )
  return { relay, replica, origin: new URL(replica.baseUrl).origin }
}
