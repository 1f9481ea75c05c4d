// The nemesis: at seeded random moments, one trouble at a time, each healed before the next: a
// replica killed with SIGKILL and started again, a replica paused (SIGSTOP, then SIGCONT), the
// database restarted (fast shutdown) or crashed (immediate shutdown) and started again, the database
// paused (its postmaster and backends), and connections cut (pg_terminate_backend) of one replica or all.
import { seededRandom } from '../../support/random.js'
import type { Trouble, TroubleKind } from './checker.js'
import type { Cluster } from './cluster.js'

const KINDS: readonly TroubleKind[] = ['kill', 'pause', 'db-fast-restart', 'db-immediate-restart', 'db-pause', 'cut']

export async function runNemesis(
  cluster: Cluster,
  { seed, seconds, now, log }: { seed: number; seconds: number; now: () => number; log: (line: string) => void },
): Promise<Trouble[]> {
  const random = seededRandom(seed)
  const between = (low: number, high: number): number => low + random() * (high - low)
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
  const troubles: Trouble[] = []
  const end = now() + seconds * 1_000
  const { replicas, db } = cluster
  while (now() < end) {
    await sleep(between(1_000, 4_000))
    if (now() >= end) break
    const kind = KINDS[Math.floor(random() * KINDS.length)] as TroubleKind
    const replica = replicas[Math.floor(random() * replicas.length)]?.n ?? 1
    const hold = between(500, 5_000)
    const from = now()
    let struck: number | undefined = replica
    if (kind === 'kill') {
      await cluster.kill(replica)
      await sleep(hold)
      await cluster.start(replica)
    } else if (kind === 'pause') {
      cluster.pause(replica)
      await sleep(hold)
      cluster.resume(replica)
    } else if (kind === 'db-fast-restart') {
      struck = undefined
      await db.restart()
    } else if (kind === 'db-immediate-restart') {
      struck = undefined
      await db.kill()
      await db.start()
    } else if (kind === 'db-pause') {
      struck = undefined
      cluster.pauseDatabase()
      await sleep(hold)
      cluster.resumeDatabase()
    } else {
      // One replica's connections, or every replica's.
      if (random() < 0.3) struck = undefined
      await db.terminate(struck === undefined ? {} : { applicationName: `replica-${struck}` })
    }
    const trouble: Trouble = { kind, replica: struck, from, to: now() }
    troubles.push(trouble)
    log(`${kind}${struck ? ` replica ${struck}` : ''} ${(from / 1000).toFixed(2)}-${(trouble.to / 1000).toFixed(2)}s`)
  }
  return troubles
}
