// What the nemesis strikes: replicas of the built sandbox on one PostgreSQL database behind HAProxy
// (as test/support/replicas.ts starts them), each on a port of its own so that a replica killed
// comes back where the balancer looks for it. Every signal goes to a process this test started,
// by its PID: a replica, the postmaster, or a backend the postmaster forked.
import { readdirSync, readFileSync } from 'node:fs'
import type { Test } from 'tap'
import { startHaproxy, type Haproxy } from '../../support/haproxy.js'
import type { Postgres } from '../../support/postgres.js'
import { KEY, replicaUrl, TOKEN } from '../../support/replicas.js'
import { freePort, spawnCli, type RunningCli } from '../../support/sandbox.js'

export interface Replica {
  /** 1, 2…: its application_name in the database is replica-<n>. */
  readonly n: number
  readonly origin: string
  run: RunningCli | undefined
  paused: boolean
}

export interface Cluster {
  readonly db: Postgres
  readonly balancer: Haproxy
  readonly replicas: readonly Replica[]
  /** The replica `response` came from through the balancer, or undefined when the balancer answered itself. */
  servedBy(response: Response): number | undefined
  kill(n: number): Promise<void>
  start(n: number): Promise<void>
  pause(n: number): void
  resume(n: number): void
  pauseDatabase(): void
  resumeDatabase(): void
  /** Every process running and none paused. */
  heal(): Promise<void>
  /** The lines every replica logged at level error or above, those killed too: each one a bug. */
  errors(): string[]
}

/** How long a replica's start is tried again, as a supervisor would. */
const RESTART_WITHIN_MS = 30_000

/** Each journal holds the whole run: a dropped entry would read as one never written. */
const JOURNAL = { JOURNAL_SIZE: '100000', JOURNAL_BYTES: '268435456', JOURNAL_TOTAL_BYTES: '536870912' }

export async function startCluster(t: Test, db: Postgres, cli: string, count: number): Promise<Cluster> {
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()))
  const replicas: Replica[] = ports.map((port, i) => ({
    n: i + 1,
    origin: `http://127.0.0.1:${port}`,
    run: undefined,
    paused: false,
  }))
  const replica = (n: number): Replica => {
    const found = replicas[n - 1]
    if (found === undefined) throw new Error(`no replica ${n}`)
    return found
  }
  const start = async (n: number): Promise<void> => {
    const r = replica(n)
    if (r.run !== undefined) return
    const env = {
      DATABASE_URL: replicaUrl(db, n),
      API_KEYS: KEY,
      ADMIN_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
      PORT: new URL(r.origin).port,
      ...JOURNAL,
    }
    // As a supervisor restarts it: a start that stops (the database down, with overlapping troubles) is tried again.
    const until = performance.now() + RESTART_WITHIN_MS
    for (;;) {
      try {
        r.run = await spawnCli(t, env, [], cli)
        return
      } catch (error) {
        if (performance.now() >= until) throw error
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
  }
  await Promise.all(replicas.map((r) => start(r.n)))
  const balancer = await startHaproxy(
    replicas.map((r) => r.origin),
    t,
  )
  let databasePaused: number[] = []
  /** The output of replicas killed since they started. */
  const ended: string[] = []

  const cluster: Cluster = {
    db,
    balancer,
    replicas,
    servedBy(response) {
      const origin = balancer.servedBy(response)
      const index = replicas.findIndex((r) => r.origin === origin)
      return index === -1 ? undefined : index + 1
    },
    async kill(n) {
      const r = replica(n)
      if (r.run === undefined) return
      r.run.child.kill('SIGKILL')
      await r.run.exited
      ended.push(r.run.stdout)
      r.run = undefined
      r.paused = false
    },
    start,
    pause(n) {
      const r = replica(n)
      if (r.run?.child.pid === undefined || r.paused) return
      process.kill(r.run.child.pid, 'SIGSTOP')
      r.paused = true
    },
    resume(n) {
      const r = replica(n)
      if (r.run?.child.pid !== undefined && r.paused) process.kill(r.run.child.pid, 'SIGCONT')
      r.paused = false
    },
    pauseDatabase() {
      const postmaster = db.pid
      if (postmaster === undefined || databasePaused.length > 0) return
      // The postmaster first, so that it forks no backend while the others are stopped.
      process.kill(postmaster, 'SIGSTOP')
      databasePaused = [postmaster, ...childrenOf(postmaster)]
      for (const pid of databasePaused.slice(1)) process.kill(pid, 'SIGSTOP')
    },
    resumeDatabase() {
      for (const pid of databasePaused.reverse()) signalIfAlive(pid, 'SIGCONT')
      databasePaused = []
    },
    async heal() {
      cluster.resumeDatabase()
      if (db.pid === undefined) await db.start()
      for (const r of replicas) cluster.resume(r.n)
      await Promise.all(replicas.map((r) => start(r.n)))
    },
    errors() {
      const lines = [...ended, ...replicas.map((r) => r.run?.stdout ?? '')].flatMap((out) => out.split('\n'))
      return lines.filter((line) => /^\{"level":(5|6)\d\b/.test(line))
    },
  }
  // Nothing stays stopped past the test: a stopped process ignores all but SIGKILL and SIGCONT.
  t.teardown(() => {
    cluster.resumeDatabase()
    for (const r of replicas) cluster.resume(r.n)
  })
  return cluster
}

/** The PIDs whose parent is `parent`, from /proc (a backend is the postmaster's child). */
function childrenOf(parent: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // The fields after the command's closing parenthesis: state, then the parent's PID.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === parent) children.push(Number(entry))
    } catch {
      // The process ended while listed.
    }
  }
  return children
}

function signalIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // Already gone: a backend that ended.
  }
}
