// The shared database's parts, made together for a start with DATABASE_URL (loaded only then).
import type { Logger } from 'pino'
import type { LiveNamespaces, NamespaceBackend } from '../namespaces/namespace-backend.js'
import { UnknownSnapshot } from '../namespaces/namespace.js'
import type { Redactor } from '../journal/redactor.js'
import type { Baseline } from '../store/baseline.js'
import type { FrozenPets } from '../store/pets.js'
import type { SnapshotShelf } from '../store/snapshots.js'
import type { Stores } from '../store/stores.js'
import { openDatabase, type Database } from './database.js'
import { expireForgotten } from './expiry.js'
import { takeHanded } from './handed.js'
import { SharedNamespaces } from './shared-namespaces.js'
import { Sharing } from './shared-state.js'
import { snapshotShelf } from './snapshot-shelf.js'

export interface Shared {
  readonly database: Database
  /** Where named snapshots are kept, for the stores to open with. */
  readonly shelf: SnapshotShelf
  /** The namespace backend, over the stores opened with the shelf. */
  backend(options: {
    stores: Stores
    redactor: Redactor
    /** NAMESPACES_PER_KEY, counted in the database across replicas. */
    perKey: number | undefined
    journalSize: number
  }): (live: LiveNamespaces) => NamespaceBackend
}

export async function openShared(url: string, logger: Pick<Logger, 'warn' | 'info' | 'error'>): Promise<Shared> {
  const database = await openDatabase(url, logger)
  let stopSweeps = (): void => undefined
  let releaseLeases = (): Promise<void> => Promise.resolve()
  return {
    database: {
      ...database,
      close: async () => {
        stopSweeps()
        // Its namespaces move at once rather than when their leases would have run out.
        await releaseLeases().catch(() => undefined)
        await database.close()
      },
    },
    shelf: snapshotShelf(database),
    backend: ({ stores, redactor, perKey, journalSize }) => {
      // Once the sandbox serves: forgotten namespaces leave the database, and handed entries come.
      const stopExpiry = expireForgotten(database, logger)
      const frozenPets = (baseline: Baseline): Promise<FrozenPets> => frozenPetsOf(stores, baseline)
      const sharing = new Sharing({ database, logger, redactor, frozenPets, perKey, journalSize })
      const stopTaking = takeHanded(database, sharing.leases, sharing.unjournaled.handed, sharing.later, logger)
      stopSweeps = () => (stopExpiry(), stopTaking())
      releaseLeases = () => sharing.batches.settled().then(() => sharing.leases.release())
      return (live) => new SharedNamespaces(live, stores, sharing, logger)
    },
  }
}

/** The pets a namespace starts from: a snapshot's, taken from the database when another replica made it. */
async function frozenPetsOf(stores: Stores, baseline: Baseline): Promise<FrozenPets> {
  if (baseline.kind !== 'snapshot') return stores.frozenPets(baseline)
  const kept = stores.snapshots.frozenPets(baseline)
  if (kept !== undefined) return kept
  await stores.snapshots.refresh()
  return stores.snapshots.frozenPets(baseline) ?? Promise.reject(new UnknownSnapshot(baseline.name))
}
