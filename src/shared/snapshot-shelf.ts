// Named snapshots in the shared database: every replica resets from the same ones, and one is
// deleted only while no namespace starts from it (its row locked against a reset meanwhile).
import type { SnapshotShelf, StoredSnapshot } from '../store/snapshots.js'
import type { Database } from './database.js'
import { dueOf } from './deadline.js'

export function snapshotShelf(database: Database): SnapshotShelf {
  return {
    async all(came) {
      const { rows } = await database.query<StoredSnapshot>(
        `SELECT name, namespace, pets, clock, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
           FROM snapshots ORDER BY created_at, name`,
        [],
        dueOf(came),
      )
      return rows
    },
    // In a transaction: one whose commit was cut is answered as it ended, not as refused.
    put: ({ name, namespace, pets, clock, createdAt }, came) =>
      database.transaction(async (client) => {
        const { rowCount } = await client.query(
          'INSERT INTO snapshots (name, namespace, pets, clock, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING',
          [name, namespace, JSON.stringify(pets), clock, createdAt],
        )
        return rowCount === 1
      }, dueOf(came)),
    remove: (name, came) =>
      database.transaction(async (client) => {
        const found = await client.query('SELECT 1 FROM snapshots WHERE name = $1 FOR UPDATE', [name])
        if (found.rowCount !== 1) return { deleted: false, users: [] }
        const { rows } = await client.query<{ name: string }>(
          "SELECT name FROM namespaces WHERE state -> 'base' = $1::jsonb ORDER BY name",
          [JSON.stringify({ kind: 'snapshot', name })],
        )
        if (rows.length > 0) return { deleted: false, users: rows.map((row) => row.name) }
        await client.query('DELETE FROM snapshots WHERE name = $1', [name])
        return { deleted: true, users: [] }
      }, dueOf(came)),
  }
}
