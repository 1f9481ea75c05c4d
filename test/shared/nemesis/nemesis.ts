// The nemesis: at seeded random moments, a replica killed with SIGKILL and started again, a replica
// paused (SIGSTOP, then SIGCONT), the database restarted (fast shutdown) or crashed (immediate
// shutdown) and started again, the database paused (its postmaster and backends), and connections
// cut (pg_terminate_backend) of one replica or all. One trouble at a time, each healed before the
// next; or, with `overlap`, troubles that begin while others last (never two on one replica, nor two
// on the database, a cut counting as one).
import { seededRandom } from '../../support/random.js'
import type { Trouble, TroubleKind } from './checker.js'
import type { Cluster } from './cluster.js'

const KINDS: readonly TroubleKind[] = ['kill', 'pause', 'db-fast-restart', 'db-immediate-restart', 'db-pause', 'cut']

export async function runNemesis(
  cluster: Cluster,
  {
    seed,
    seconds,
    overlap = false,
    now,
    log,
  }: { seed: number; seconds: number; overlap?: boolean; now: () => number; log: (line: string) => void },
): Promise<Trouble[]> {
  const random = seededRandom(seed)
  const between = (low: number, high: number): number => low + random() * (high - low)
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
  const troubles: Trouble[] = []
  const end = now() + seconds * 1_000
  const { replicas, db } = cluster
  // What a trouble under way strikes: a replica's number, or 0 for the database.
  const struckNow = new Set<number>()
  const lasting = new Set<Promise<void>>()

  const strike = async (kind: TroubleKind, replica: number, hold: number, struck: number | undefined) => {
    const from = now()
    if (kind === 'kill') {
      await cluster.kill(replica)
      await sleep(hold)
      await cluster.start(replica)
    } else if (kind === 'pause') {
      cluster.pause(replica)
      await sleep(hold)
      cluster.resume(replica)
    } else if (kind === 'db-fast-restart') {
      await db.restart()
    } else if (kind === 'db-immediate-restart') {
      await db.kill()
      await db.start()
    } else if (kind === 'db-pause') {
      cluster.pauseDatabase()
      await sleep(hold)
      cluster.resumeDatabase()
    } else {
      await db.terminate(struck === undefined ? {} : { applicationName: `replica-${struck}` })
    }
    const trouble: Trouble = { kind, replica: struck, from, to: now() }
    troubles.push(trouble)
    log(`${kind}${struck ? ` replica ${struck}` : ''} ${(from / 1000).toFixed(2)}-${(trouble.to / 1000).toFixed(2)}s`)
  }

  while (now() < end) {
    await sleep(overlap ? between(300, 2_000) : between(1_000, 4_000))
    if (now() >= end) break
    const kind = KINDS[Math.floor(random() * KINDS.length)] as TroubleKind
    const replica = replicas[Math.floor(random() * replicas.length)]?.n ?? 1
    const hold = between(500, 5_000)
    // One replica's connections cut, or every replica's.
    const struck = kind.startsWith('db-') || (kind === 'cut' && random() < 0.3) ? undefined : replica
    // A cut is a query to the database: never while another trouble stops it.
    const target = kind.startsWith('db-') || kind === 'cut' ? 0 : replica
    if (!overlap) {
      await strike(kind, replica, hold, struck)
      continue
    }
    if (struckNow.has(target)) continue
    struckNow.add(target)
    const under = strike(kind, replica, hold, struck).finally(() => {
      struckNow.delete(target)
      lasting.delete(under)
    })
    lasting.add(under)
  }
  await Promise.all(lasting)
  return troubles.sort((a, b) => a.from - b.from)
}
