// The shared database's parts, made together for a start with DATABASE_URL (loaded only then).
import type { Logger } from 'pino'
import type { Redactor } from '../control/redactor.js'
import type { DataSource } from '../store/data-source.js'
import type { SharedPets } from '../store/pets.js'
import type { SnapshotShelf } from '../store/snapshots.js'
import { openDatabase, type Database } from './database.js'
import { Sharing } from './shared-state.js'
import { snapshotShelf } from './snapshot-shelf.js'

export interface Shared {
  readonly database: Database
  readonly shelf: SnapshotShelf
  sharing(options: { redactor: Redactor; sharedPets: (source: DataSource) => Promise<SharedPets> }): Sharing
}

export async function openShared(url: string, logger: Pick<Logger, 'warn' | 'info' | 'error'>): Promise<Shared> {
  const database = await openDatabase(url, logger)
  return {
    database,
    shelf: snapshotShelf(database),
    sharing: (options) => new Sharing({ database, logger, ...options }),
  }
}
