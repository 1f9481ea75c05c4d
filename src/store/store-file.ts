// Where a store's data is kept: what a data file holds, its records, and the door a store writes
// through (a data file, or nothing for a store in memory).
import type { Adapter } from 'lowdb'
import type { Baseline } from './baseline.js'
import type { FilesOnDisk } from './durable-io.js'
import type { IdempotencyKeys, KeyedCreate } from './idempotency-keys.js'
import type { Pet } from './pets.js'

/**
 * What the data file holds. `source` is the data it was first made from. `base`, when set, is
 * the baseline of the frozen pets that come before `pets`: a store reset to a snapshot holds only the
 * pets it added since.
 */
export interface StoreData {
  source?: Baseline
  base?: Baseline
  pets: Pet[]
  idempotencyKeys?: IdempotencyKeys
}

/**
 * An append-log line that replaced every pet (a reset) with the pets of a baseline a start can make
 * again, so that a reset costs one line however many pets it brings.
 */
export interface ResetRecord {
  readonly reset: Baseline
}

/** What a data file's append log holds: added pets (a pet and its create's key in one line) and resets. */
export type StoreRecord = Pet | KeyedCreate | ResetRecord

/** Where a store's data is kept: lowdb's Adapter, and the append log's cheaper writes. */
export interface StoreFile extends Adapter<StoreData> {
  /** Whether writes reach a disk (and are worth timing). */
  readonly durable: boolean
  readonly mayHave: FilesOnDisk
  append(data: StoreData, records: readonly StoreRecord[]): Promise<void>
  /** A reset: `data` already holds its result. */
  replaceWith(data: StoreData, record: ResetRecord): Promise<void>
  /** Waits for the writes asked for, and folds what it can. */
  compact(data: StoreData): Promise<void>
  /** Waits for the writes under way; nothing is folded after (the store is being removed). */
  retire(): Promise<void>
  reinstate(): void
}

const done = (): Promise<void> => Promise.resolve()

/** A store kept in memory only. */
export const IN_MEMORY: StoreFile = {
  durable: false,
  mayHave: 'none',
  read: async () => null,
  write: done,
  append: done,
  replaceWith: done,
  compact: done,
  retire: done,
  reinstate: () => undefined,
}

/** Told how long each acknowledged write of a data file took, in seconds (GET /metrics). */
export type WriteObserver = (seconds: number) => void
