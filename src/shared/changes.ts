// What a request changed in a namespace since a replica last synced it with its row: the pets
// added (or all of them, replaced), the journal's new entries and the row's new state.
import type { Fault } from '../namespaces/faults.js'
import type { Namespace } from '../namespaces/namespace.js'
import { MAX_RECORDED_BODY, type Redactor } from '../journal/redactor.js'
import type { AnimalStore } from '../store/store.js'
import type { RequestRecord } from '../journal/request-record.js'
import { sameBaseline } from '../store/baseline.js'
import type { HandedIds } from './handed.js'
import { moved, type Lease } from './leases.js'
import { stateText, type Change, type State, type StoredRecord } from './tables.js'

/** What a replica last took from or gave to the row, to tell what changed since. */
export interface Synced {
  readonly incarnation: string
  readonly version: string
  /** The life of the database server it was taken from (Transaction.server). */
  readonly server: string
  readonly state: State
}

/** A request's change as the next commit writes it. */
export interface Taken {
  readonly change: Change
  /** The journal's entries the change writes, by id. */
  readonly entries: readonly { readonly id: number; readonly record: RequestRecord }[]
  /** The version the row has once the change is written, when it changes the state. */
  readonly version: string | undefined
  /** A snapshot the pets start from anew: it must still exist as the change commits. */
  readonly snapshot: string | undefined
}

/**
 * The change in `namespace` since `synced`, with the state it leaves. Without a lease (another
 * replica serves the namespace) a change is refused: only what changes nothing is served here.
 */
export async function changeSince(
  namespace: Namespace,
  synced: Synced,
  lease: Lease | undefined,
  redactor: Redactor,
  handed: Pick<HandedIds, 'recordedRows'>,
): Promise<{ taken: Taken; state: State }> {
  const before = synced.state
  const store = await namespace.store()
  const own = store.own
  const added =
    sameBaseline(store.base, before.base ?? undefined) &&
    sameBaseline(store.source, before.source ?? undefined) &&
    own.length >= before.pets.count &&
    (before.pets.count === 0 || own[before.pets.count - 1]?.id === before.pets.lastId)
  const { journal } = namespace
  const cleared = journal.clears !== before.journal.clears
  const entries = journal.recordsAfter(cleared ? 0 : before.journal.lastId)
  // A copy: the change may commit after later requests added to the store's pets.
  const pets = own.slice(added ? before.pets.count : 0)
  const state = await stateOf(namespace, added ? before.pets.generation : before.pets.generation + 1)
  // A new entry moves the journal's last id, so the state changed: no text is made on every read.
  const changed = cleared || entries.length > 0 || stateText(state) !== stateText(before)
  const durable = !added || pets.length > 0 || (changed && lastingChanged(state, before))
  if (lease === undefined && (durable || entries.length > 0)) throw moved(namespace.name)
  const keys = store.idempotencyKeys
  const change: Change = {
    fence: lease,
    pets,
    keyOf: (id) => keys.ofPet(id),
    replacePets: !added,
    records: entries.map(({ id, record }) => ({ id, record: stored(record, redactor) })),
    replaceRecords: cleared,
    // The journal's bound: what this replica no longer keeps, no replica does.
    keepFrom: entries.length > 0 && journal.oldestId !== before.journal.oldestId ? journal.oldestId : undefined,
    keptFrom: before.journal.oldestId ?? 0,
    state: changed ? state : undefined,
    states: changed ? 1 : 0,
    durable,
    handed: handed.recordedRows(namespace.name),
  }
  const version = changed ? String(BigInt(synced.version) + 1n) : undefined
  const snapshot = store.base?.kind === 'snapshot' && !sameBaseline(store.base, before.base ?? undefined)
  return { taken: { change, entries, version, snapshot: snapshot ? store.base?.name : undefined }, state }
}

/**
 * Whether what a client was told is stored differs between two states: all but the journal and
 * the calls each fault has seen. A fault's firing was told (its answer): lost in a crash, the fault
 * would fire again. Compared as values, with no text made on every read: a state read back from
 * jsonb has its keys in another order, which is no change.
 */
export function lastingChanged(state: State, before: State): boolean {
  const [pets, was] = [state.pets, before.pets]
  return !(
    sameBaseline(state.source ?? undefined, before.source ?? undefined) &&
    sameBaseline(state.base ?? undefined, before.base ?? undefined) &&
    pets.generation === was.generation &&
    pets.count === was.count &&
    pets.lastId === was.lastId &&
    state.faults.nextId === before.faults.nextId &&
    state.clock.offset === before.clock.offset &&
    state.clock.moved === before.clock.moved &&
    sameFaults(state.faults.faults, before.faults.faults)
  )
}

/** Whether two lists of faults are the same but for the calls each has seen. */
function sameFaults(faults: readonly Fault[], before: readonly Fault[]): boolean {
  const told = ({ seen: _seen, seenBy: _seenBy, ...fault }: Fault) => fault
  return (
    faults.length === before.length && faults.every((fault, i) => sameValue(told(fault), before[i] && told(before[i])))
  )
}

/** Whether two JSON values are the same, their keys in any order (an undefined property is none). */
function sameValue(value: unknown, other: unknown): boolean {
  if (value === other) return true
  if (typeof value !== 'object' || typeof other !== 'object' || value === null || other === null) return false
  if (Array.isArray(value) || Array.isArray(other)) {
    if (!Array.isArray(value) || !Array.isArray(other) || value.length !== other.length) return false
    return value.every((item, i) => sameValue(item, other[i]))
  }
  const [a, b] = [value as Record<string, unknown>, other as Record<string, unknown>]
  const keys = (object: Record<string, unknown>) => Object.keys(object).filter((key) => object[key] !== undefined)
  const [aKeys, bKeys] = [keys(a), keys(b)]
  return aKeys.length === bKeys.length && aKeys.every((key) => sameValue(a[key], b[key]))
}

/** A request as the database keeps it: redacted as the journal shows it, its body cut as the journal keeps it. */
export function stored(record: RequestRecord, redactor: Redactor): StoredRecord {
  const body = record.body?.subarray(0, MAX_RECORDED_BODY + 1)
  const { error } = record
  return {
    ...record,
    path: redactor.text(record.path),
    search: redactor.text(record.search),
    headers: redactor.headers(record.headers),
    body: body === undefined ? null : Buffer.from(redactor.text(body.toString('utf8'))).toString('base64'),
    error: error === undefined ? undefined : { code: error.code, message: redactor.text(error.message) },
  }
}

/** A namespace's row state as it is in memory, a copy; `generation` as the caller counts it. */
export async function stateOf(namespace: Namespace, generation = 0): Promise<State> {
  const store: AnimalStore = await namespace.store()
  const own = store.own
  const { journal } = namespace
  return {
    source: store.source ?? null,
    base: store.base ?? null,
    pets: { generation, count: own.length, lastId: own.at(-1)?.id ?? 0 },
    faults: namespace.faults.dump(),
    clock: namespace.clock.dump(),
    journal: {
      clears: journal.clears,
      clearedAt: journal.clearedAt,
      lastId: journal.lastId,
      oldestId: journal.oldestId ?? null,
      tally: journal.tally.dump(),
    },
  }
}

/**
 * `taken`, its commit waiting for the disk whatever it changes: it journals entries answered a while
 * ago (kept while the database was away, or handed by another replica), past the last instants
 * before a crash in which a read's entry may be lost.
 */
export function durably(taken: Taken): Taken {
  return { ...taken, change: { ...taken.change, durable: true } }
}

/** Whether a change writes nothing: no batch need carry it. */
export function nothingIn(change: Change): boolean {
  return (
    change.state === undefined &&
    change.pets.length === 0 &&
    change.records.length === 0 &&
    !change.replacePets &&
    !change.replaceRecords &&
    change.keepFrom === undefined &&
    change.handed.length === 0
  )
}
