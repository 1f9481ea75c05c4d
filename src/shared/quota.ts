// NAMESPACES_PER_KEY across replicas: a new namespace's row is counted against its key's hash
// under an advisory lock of that hash, held until the transaction that inserts the row ends, so
// that replicas making namespaces for one key at once count one after another, never past it.
import type pg from 'pg'
import { quotaReached } from '../namespaces/namespace-quota.js'

/** The first half of the advisory lock's key; the second is the owner's hash, hashed again. */
const QUOTA_LOCK = 4_010_053

export interface Quota {
  /** The hash of the API key of the request that makes the namespace. */
  readonly owner: string
  readonly perKey: number
}

/** Refuses (503 namespace_limit) a new row of `name` that would take its owner past the quota: nothing is written. */
export async function countAgainst(client: pg.PoolClient, name: string, { owner, perKey }: Quota): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [QUOTA_LOCK, owner])
  // A statement of its own, after the lock: it sees the rows the owner's last maker committed.
  const { rows } = await client.query<{ owned: number; made: boolean | null }>(
    'SELECT count(*) FILTER (WHERE owner = $1)::int AS owned, bool_or(name = $2) AS made FROM namespaces WHERE owner = $1 OR name = $2',
    [owner, name],
  )
  const [{ owned, made } = { owned: 0, made: null }] = rows
  // Made meanwhile by another replica: this is no new namespace.
  if (made !== true && owned >= perKey) throw quotaReached(name, perKey)
}
