// The entries other replicas handed to the namespaces this replica owns (table handed_entries):
// taken every TAKE_EVERY_MS and kept for the journal, which the namespace's next hold here writes
// (a request, or the flush of kept entries within a second). A batch's transaction takes them too,
// but an owner whose namespace is only read through the control API commits no batch: without this,
// its journal and `verify` would miss them however long they were asked.
import type { Logger } from 'pino'
import { isOutage, type Database } from './database.js'
import type { Leases } from './leases.js'
import { revive, type StoredRecord } from './tables.js'
import type { Unjournaled } from './unjournaled.js'

const TAKE_EVERY_MS = 500

/** Takes handed entries each TAKE_EVERY_MS until the function it gives is called (the timer keeps nothing alive). */
export function takeHanded(
  database: Database,
  leases: Leases,
  unjournaled: Unjournaled,
  logger: Pick<Logger, 'warn'>,
): () => void {
  let taking = false
  const take = async (): Promise<void> => {
    const names = leases.held()
    if (taking || names.length === 0) return
    taking = true
    try {
      const { rows } = await database.query<{ namespace: string; id: string; record: StoredRecord }>(
        'DELETE FROM handed_entries WHERE namespace = ANY($1::text[]) RETURNING namespace, id, record',
        [names],
      )
      const byName = new Map<string, typeof rows>()
      for (const row of rows.sort((a, b) => Number(a.id) - Number(b.id)))
        byName.set(row.namespace, [...(byName.get(row.namespace) ?? []), row])
      for (const [name, handed] of byName)
        unjournaled.add(
          name,
          handed.map((row) => revive(row.record)),
        )
    } catch (error) {
      // The database away: the entries stay in the table, for the next try or a batch.
      if (!isOutage(error))
        logger.warn({ err: error }, 'entries handed to this replica could not be taken: the next try takes them')
    } finally {
      taking = false
    }
  }
  const timer = setInterval(() => void take(), TAKE_EVERY_MS).unref()
  return () => clearInterval(timer)
}
