// Forgotten namespaces leave the shared database: a long-lived sandbox that many CI jobs use keeps
// the namespaces in use, not every one a job made and never deleted. Each replica sweeps at its
// start and each hour; a namespace goes when no API call was journaled in it, and it was not made,
// within NAMESPACE_EXPIRY_DAYS (7). The default namespace stays.
import type { Logger } from 'pino'
import { DEFAULT_NAMESPACE } from '../namespaces/namespace-choice.js'
import type { Database } from './database.js'

export const NAMESPACE_EXPIRY_DAYS = 7
const SWEEP_EVERY_MS = 60 * 60 * 1000

/** Whether namespace $1 was neither made nor called within the expiry: read after its row is locked. */
const FORGOTTEN = `
  SELECT 1 FROM namespaces n
   WHERE n.name = $1 AND n.created_at < now() - make_interval(days => $2)
     AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.namespace = n.name
                       AND (r.record ->> 'time')::bigint > extract(epoch FROM now() - make_interval(days => $2)) * 1000)`

/** Sweeps now and each hour, until the function it gives is called (the timers keep nothing alive). */
export function expireForgotten(database: Database, logger: Pick<Logger, 'info' | 'warn'>): () => void {
  const sweep = (): void =>
    void sweepOnce(database).then(
      (expired) => {
        if (expired.length > 0) logger.info({ namespaces: expired }, 'forgotten namespaces deleted')
      },
      (error: unknown) =>
        logger.warn({ err: error }, 'forgotten namespaces could not be swept: the next sweep tries again'),
    )
  const first = setImmediate(sweep).unref()
  const next = setInterval(sweep, SWEEP_EVERY_MS).unref()
  return () => {
    clearImmediate(first)
    clearInterval(next)
  }
}

/** The names deleted. Each is checked again with its row locked: a request served meanwhile keeps it. */
export async function sweepOnce(database: Database): Promise<string[]> {
  const { rows } = await database.query<{ name: string }>(
    `SELECT name FROM namespaces WHERE name <> $1 AND created_at < now() - make_interval(days => $2)`,
    [DEFAULT_NAMESPACE, NAMESPACE_EXPIRY_DAYS],
  )
  const expired: string[] = []
  for (const { name } of rows) {
    const gone = await database.transaction(async (client) => {
      // A namespace held by a request is skipped: it is in use.
      const locked = await client.query('SELECT 1 FROM namespaces WHERE name = $1 FOR UPDATE SKIP LOCKED', [name])
      if (locked.rowCount !== 1) return false
      // A statement of its own, after the lock: it sees what the last request committed.
      const forgotten = await client.query(FORGOTTEN, [name, NAMESPACE_EXPIRY_DAYS])
      if (forgotten.rowCount !== 1) return false
      await client.query('DELETE FROM namespaces WHERE name = $1', [name])
      return true
    })
    if (gone) expired.push(name)
  }
  // A deletion is remembered for the entries a replica kept while it could not reach the database.
  await database.query('DELETE FROM deleted_namespaces WHERE deleted_at < now() - make_interval(days => $1)', [
    NAMESPACE_EXPIRY_DAYS,
  ])
  return expired
}
