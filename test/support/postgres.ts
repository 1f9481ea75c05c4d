// A real PostgreSQL server for the shared store's tests (scripts/lib/postgres.ts), closed when the
// test ends; tests that need one skip without Debian's package, or fail under REQUIRE_PROGRAMS=1.
import { join } from 'node:path'
import type { Test } from 'tap'
import { POSTGRES_BIN, startPostgres as start, type Postgres } from '../../scripts/lib/postgres.js'
import { skipWithout } from './system-programs.js'

export { POSTGRES_BIN, type Postgres } from '../../scripts/lib/postgres.js'

/** A tap `skip` value for a test that starts PostgreSQL (skipWithout's: fails under REQUIRE_PROGRAMS=1). */
export function postgresSkip(t: Test): string | false {
  return skipWithout(t, join(POSTGRES_BIN ?? '/usr/lib/postgresql/<major>/bin', 'postgres'), 'postgresql')
}

/** A new cluster (scripts/lib/postgres.ts); with `t`, closed when the test ends, else call `close()`. */
export async function startPostgres(t?: Test): Promise<Postgres> {
  const db = await start()
  t?.teardown(db.close)
  return db
}
