// Opens one store: its data file read back (and checked), or made from the initial data.
import { DataFile, type DataFileOptions, type Layout } from './data-file.js'
import { isBaseline, sameBaseline, baselineKey, type Baseline } from './baseline.js'
import { DataFileError, StorageError } from './errors.js'
import { appendLogOf } from './files.js'
import { IdempotencyKeys, isKeyedCreate } from './idempotency-keys.js'
import type { DroppedTail } from './append-log-text.js'
import type { Capacity } from './limits.js'
import type { FrozenPets } from './pets.js'
import { AnimalStore } from './store.js'
import {
  IN_MEMORY,
  type ResetRecord,
  type StoreData,
  type StoreFile,
  type StoreRecord,
  type WriteObserver,
} from './store-file.js'

export interface OpenStoreOptions {
  /** Undefined: the store lives in memory only. */
  readonly dataFile: string | undefined
  /** The initial data's baseline: a file made from other data is rebuilt from it. */
  readonly source: Baseline
  /** The frozen pets of a baseline (a snapshot's, the initial data's, a seed's); undefined for one this start cannot make. */
  readonly frozenPets: (source: Baseline) => FrozenPets | Promise<FrozenPets> | undefined
  /** Checks pets read from a file: the index of the first bad one and why. */
  readonly checkPets: (pets: unknown) => { index: number; problem: string } | undefined
  /** A namespace's store: on disk only once it changes, its append log naming the initial data. */
  readonly unwrittenUntilChanged?: boolean
  /** The caller knows no file of it is there: nothing is read. */
  readonly absent?: boolean
  /** For one absent: the frozen pets it starts from instead of the initial data. */
  readonly frozen?: FrozenPets | undefined
  readonly storage?: DataFileOptions | undefined
  /** What every store of the sandbox keeps, against the bounds. */
  readonly capacity?: Capacity
  readonly observeWrite?: WriteObserver | undefined
}

export interface OpenedStore {
  readonly store: AnimalStore
  readonly from: 'data file' | 'initial data'
  /** The baseline of a data file rebuilt because it was made from other data. */
  readonly replacedSource: Baseline | undefined
  /** The end of the append log that held no whole record (an append a crash cut short), dropped. */
  readonly droppedTail: DroppedTail | undefined
}

export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const { dataFile, source, capacity, observeWrite } = options
  const base = options.absent ? options.frozen : undefined
  // A namespace starts from the frozen initial pets; the default store holds them, so that its file lists them.
  const unwritten = (): StoreData => ({ source, base: base?.source ?? source, pets: [] })
  const onDisk =
    dataFile === undefined
      ? undefined
      : new DataFile<StoreData, StoreRecord>(dataFile, 'pets', options.storage, {
          replay: replayer(dataFile, options),
          without: withoutRecords,
          startsOver: isReset,
          ...(options.unwrittenUntilChanged && {
            unwritten: {
              id: `initial:${baselineKey(source)}`,
              data: async () => unwritten(),
              from: base && { reset: base.source },
            },
          }),
        })
  const file: StoreFile = onDisk ?? IN_MEMORY
  const existing = options.absent ? (onDisk?.readAbsent() ?? null) : await file.read()
  const droppedTail = onDisk?.droppedTail
  const open = (data: StoreData, frozen?: FrozenPets) => new AnimalStore(file, data, frozen, capacity, observeWrite)
  if (existing !== null && dataFile !== undefined) {
    const data = checkData(existing, dataFile, options.checkPets)
    // A file with no source is the user's own and is always kept.
    if (data.source === undefined || sameBaseline(data.source, source)) {
      const store = open(data, data.base === undefined ? undefined : await frozenOf(data.base, options))
      return { store, from: 'data file', replacedSource: undefined, droppedTail }
    }
    const store = open({ pets: [] })
    await writeInitialData(store, options)
    return { store, from: 'initial data', replacedSource: data.source, droppedTail }
  }
  const opened = { from: 'initial data', replacedSource: undefined, droppedTail: undefined } as const
  // Nothing to write: the first change starts the append log that names the initial data.
  if (options.unwrittenUntilChanged)
    return { store: open(unwritten(), base ?? (await frozenOf(source, options))), ...opened }
  const store = open({ pets: [] })
  await writeInitialData(store, options)
  return { store, ...opened }
}

/** The frozen pets a store starts from: a file whose snapshot is gone cannot be served. */
async function frozenOf(source: Baseline, options: OpenStoreOptions): Promise<FrozenPets> {
  const frozen = await options.frozenPets(source)
  if (frozen !== undefined) return frozen
  if (sameBaseline(source, options.source)) throw new Error(`no data of ${baselineKey(source)}`)
  throw new DataFileError(
    options.dataFile ?? '',
    `starts from ${baselineKey(source)}, which is not there; it was left untouched`,
  )
}

/**
 * A pet is added, a reset replaces every pet (keeping only its source: the store holds a reference
 * to the frozen pets). Only the last reset and what follows matter: an earlier one may name a
 * snapshot deleted since.
 */
function replayer(file: string, options: OpenStoreOptions): NonNullable<Layout<StoreData, StoreRecord>['replay']> {
  return async (data, records) => {
    const keys = keysOf(data, file)
    for (const record of records.slice(Math.max(0, records.findLastIndex(isReset)))) {
      if (isKeyedCreate(record)) {
        data.pets.push(record.pet)
        keys.add(record.idempotencyKey)
        continue
      }
      if (!isReset(record)) {
        data.pets.push(record)
        continue
      }
      delete data.base
      data.pets = []
      keys.clear()
      if ((await options.frozenPets(record.reset)) !== undefined) data.base = record.reset
      // A store of another baseline is rebuilt from this start's data: what it held does not matter.
      else if (data.source === undefined || sameBaseline(data.source, options.source))
        throw new DataFileError(
          appendLogOf(file),
          `resets to ${baselineKey(record.reset)}, which this start cannot make; it was left untouched`,
        )
    }
    return data
  }
}

/** The data without records not yet durable: the pets, and the keys of keyed creates. */
function withoutRecords(data: StoreData, records: ReadonlySet<unknown>): StoreData {
  if (records.size === 0) return data
  const parts = new Set([...records].flatMap((r) => (isKeyedCreate(r) ? [r.pet, r.idempotencyKey] : [r])))
  const idempotencyKeys = IdempotencyKeys.from(data.idempotencyKeys?.without(parts))
  return { ...data, pets: data.pets.filter((pet) => !parts.has(pet)), idempotencyKeys }
}

/** The keys a data file holds, made the store's (read back, they are an array); a bad one stops the start. */
function keysOf(data: StoreData, file: string): IdempotencyKeys {
  try {
    return (data.idempotencyKeys = IdempotencyKeys.from(data.idempotencyKeys))
  } catch (error) {
    throw new DataFileError(file, `${(error as Error).message}; it was left untouched`)
  }
}

function isReset(record: StoreRecord): record is ResetRecord {
  return isBaseline((record as Partial<ResetRecord>).reset)
}

/** The first write of a data file: when it fails, the setting is at fault, and the message names the file. */
async function writeInitialData(store: AnimalStore, options: OpenStoreOptions): Promise<void> {
  const { source, dataFile } = options
  try {
    await store.replace({ source, pets: [...(await frozenOf(source, options)).pets] })
  } catch (error) {
    const cause = error instanceof StorageError ? error.cause : error
    if (dataFile === undefined || (cause as NodeJS.ErrnoException).code === undefined) throw cause
    throw new DataFileError(dataFile, `cannot be written: ${(cause as Error).message}`)
  }
}

function checkData(value: unknown, file: string, checkPets: OpenStoreOptions['checkPets']): StoreData {
  const data = value as Partial<StoreData> | null
  const invalid = (problem: string): never => {
    throw new DataFileError(file, `${problem}; it was left untouched`)
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !Array.isArray(data.pets))
    invalid('must hold a JSON object with a "pets" array')
  const { source, base, pets } = data as StoreData
  const idempotencyKeys = keysOf(data as StoreData, file)
  if (source !== undefined && !isBaseline(source)) invalid('has a "source" that is not a baseline')
  if (base !== undefined && !isBaseline(base)) invalid('has a "base" that is not a data source')
  const bad = checkPets(pets)
  if (bad) invalid(`has an invalid pet at index ${bad.index}: ${bad.problem}`)
  return { ...(source === undefined ? {} : { source }), ...(base === undefined ? {} : { base }), pets, idempotencyKeys }
}
