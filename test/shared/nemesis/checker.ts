// The nemesis's checker: from the history the clients recorded (each operation's invocation and
// completion, with its answer), the troubles the nemesis made, and the final state read from every
// replica and the database once all was healed, the invariants of docs/deploy.md#what-replicas-promise
// that broke, each with the operations that show it. Pure: the unit test feeds it hand-made histories.

/** Milliseconds since the run began (performance.now() of the test process, less its start). */
export type Ms = number

export type OpKind = 'create' | 'read' | 'reset' | 'arm' | 'verify'

export interface Answer {
  readonly status: number
  /** The Error body's code, when there is one. */
  readonly code?: string | undefined
  readonly message?: string | undefined
  /** Whether Retry-After came with it: a 503 without it says the outcome is unknown. */
  readonly retryAfter?: boolean | undefined
  /** The replica that answered (1, 2…), or undefined when the balancer answered itself. */
  readonly replica?: number | undefined
  /** A create's `Idempotent-Replayed: true`: an earlier attempt with its key stored the pet. */
  readonly replayed?: boolean | undefined
  /** The body, parsed when JSON: for a closer look at a failed run. */
  readonly body?: unknown
}

export interface Op {
  /** Unique; sent in the header `x-nemesis-op`, so that the journal names it. */
  readonly id: string
  readonly kind: OpKind
  readonly namespace: string
  readonly invokedAt: Ms
  /** When its answer (or error) came; undefined while none came. */
  readonly completedAt?: Ms | undefined
  /** Undefined when no answer came: a timeout, a connection cut. */
  readonly answer?: Answer | undefined
  readonly error?: string | undefined
  /** A create: the pet's name, unique to this operation and those that send it again (with its key). */
  readonly name?: string | undefined
  /** A create's Idempotency-Key, the same in each attempt. */
  readonly key?: string | undefined
  /** A read, create or arm: the operationId it calls, or that its fault acts on. */
  readonly operationId?: string | undefined
  /** A getPet of a pet this client created: the create's id. */
  readonly reads?: string | undefined
  /** An arm answered 201: the fault's id and its `after` (armed with times: 1). */
  readonly fault?: { readonly id: number; readonly after: number } | undefined
  /** A verify: the ids of the earlier calls it expected exactly once each, and how many each matched. */
  readonly verified?: { readonly ids: readonly string[]; readonly matched?: readonly number[] | undefined } | undefined
}

export type TroubleKind = 'kill' | 'pause' | 'db-fast-restart' | 'db-immediate-restart' | 'db-pause' | 'cut'

/** One fault of the nemesis, from when it began to when it was healed (equal for a cut). */
export interface Trouble {
  readonly kind: TroubleKind
  /** The replica it struck (kill, pause, a cut of one replica's connections). */
  readonly replica?: number | undefined
  readonly from: Ms
  readonly to: Ms
}

export interface ListedFault {
  readonly id: number
  readonly operationId: string
  readonly after: number
  readonly seen: number
  readonly fired: number
}

/** What one replica, or the database, holds at the end, by namespace. */
export interface Source {
  readonly name: string
  /** The names of the namespace's pets, as stored (a name twice if stored twice). */
  readonly pets: ReadonlyMap<string, readonly string[]>
  /** The `x-nemesis-op` of each journal entry. */
  readonly journal: ReadonlyMap<string, readonly string[]>
  readonly faults: ReadonlyMap<string, readonly ListedFault[]>
  /** The calls with an entry answered that the outcome of their commit is unknown (a 503 the client may not have got). */
  readonly unknown?: ReadonlySet<string>
}

/** A GET of a namespace on a replica after healing. */
export interface Probe {
  readonly replica: number
  readonly namespace: string
  readonly status?: number | undefined
  readonly ms: number
  readonly error?: string | undefined
}

export interface Final {
  readonly sources: readonly Source[]
  readonly probes: readonly Probe[]
}

export type Invariant =
  | 'lost write'
  | 'duplicated write'
  | 'phantom write'
  | 'unjournaled answered call'
  | 'call journaled twice'
  | 'wrongly refused write'
  | 'fault fired more than once'
  | 'fault due but never fired'
  | 'wedged namespace'
  | 'replica logged an error'

export interface Violation {
  readonly invariant: Invariant
  readonly detail: string
  /** The operations that show it. */
  readonly ops: readonly string[]
}

/** The status the clients' faults answer with: one no trouble answers. */
export const FAULT_STATUS = 418
/** A namespace must answer a GET within this after healing. */
export const WEDGE_MS = 5_000
/**
 * How long before an immediate shutdown an answered read's journal entry may be lost: it commits
 * with synchronous_commit off, flushed by PostgreSQL's WAL writer within 3 × wal_writer_delay
 * (200 ms), given slack for a loaded machine.
 */
export const CRASH_WINDOW_MS = 2_000
/** How long after a trouble ends a replica may still refuse (its pool finding its connections dead). */
export const RECOVERY_MS = 5_000

/** Answered by a replica, not by the balancer alone. */
function bySandbox(op: Op): boolean {
  return op.answer !== undefined && op.answer.replica !== undefined
}

/** A 503 that says the outcome is unknown (no Retry-After), a 500, the balancer's 502 or 504: either way. */
function ambiguousAnswer(answer: Answer): boolean {
  if (answer.replica === undefined) return answer.status !== 503
  return answer.status === 500 || (answer.status === 503 && answer.retryAfter !== true)
}

/** A 503 that says a commit's outcome is unknown: its entry may be journaled twice (docs/deploy.md). */
function outcomeUnknown(op: Op): boolean {
  return bySandbox(op) && op.answer?.status === 503 && op.answer.retryAfter !== true
}

/** An answer that says nothing was done: a refusal by a replica, or the balancer's 503 (no server reached). */
export function refused(op: Op): boolean {
  return op.answer !== undefined && op.answer.status >= 400 && !ambiguousAnswer(op.answer)
}

/** Whether the operation may have taken effect: anything but a refusal. */
function mayHaveTaken(op: Op): boolean {
  return !refused(op)
}

const storageRefusal = (op: Op): boolean => op.answer?.status === 503 && op.answer.code === 'storage_unavailable'

/**
 * A reset of `op`'s namespace that may have committed after `op` did: one that may have taken
 * effect and was not over before `op` began. Such a reset may have wiped `op`'s pet and journal entry.
 */
function resetAfter(op: Op, resets: readonly Op[], before: Ms = Infinity): Op | undefined {
  return resets.find(
    (r) =>
      r.namespace === op.namespace &&
      r.invokedAt < before &&
      mayHaveTaken(r) &&
      (r.completedAt ?? Infinity) > op.invokedAt,
  )
}

/** The end of the database's trouble under way at `at` (a stop, a pause), else `at`. */
function databaseBack(at: Ms, troubles: readonly Trouble[]): Ms {
  const down = troubles.find((t) => t.kind.startsWith('db-') && t.from <= at && at <= t.to)
  return down?.to ?? at
}

/**
 * The latest end of the troubles under way from `op`'s call to CRASH_WINDOW_MS after its answer,
 * while the batch carrying its entry may still have been committing: a trouble of the database (a
 * stop, a pause, connections cut) fails that batch, and its answered entries are kept for the
 * journal as a `503`'s are, written once the database is back; a pause of a replica (which may be
 * the owner) holds the batch until it thaws, when its lease has moved and it hands them on
 * (docs/deploy.md). One that began while the answer was on its way counts: the replica answered
 * before the client heard it.
 */
function batchStruck(op: Op, troubles: readonly Trouble[]): Ms | undefined {
  const done = op.completedAt ?? op.invokedAt
  const ends = troubles
    .filter(
      (t) =>
        (t.kind.startsWith('db-') || t.kind === 'cut' || t.kind === 'pause') &&
        t.to >= op.invokedAt &&
        t.from <= done + CRASH_WINDOW_MS,
    )
    .map((t) => t.to)
  return ends.length === 0 ? undefined : Math.max(...ends)
}

/**
 * Whether the journal promises `op`'s entry (checked at `until`, the end or a verify): every call a
 * replica answered, but for what a reset after it cleared, a read's entry in the last instants
 * before a crash of the database or of a replica (which may be its owner), a refusal's in the last
 * instants before a crash of a replica, a 503's entry its replica held when it was killed
 * before the database came back, and the same of an entry whose batch a trouble of the database
 * struck (until the database is back and a kill since).
 */
function journalPromises(op: Op, resets: readonly Op[], troubles: readonly Trouble[], until: Ms = Infinity): boolean {
  if (!bySandbox(op) || (op.kind !== 'create' && op.kind !== 'read')) return false
  if (resetAfter(op, resets, until) !== undefined) return false
  const done = op.completedAt ?? op.invokedAt
  const durable = op.kind === 'create' && op.answer?.status === 201
  // A crash of the database, or of a replica (the owner, which committed it behind), under way
  // while it committed or just after its answer. A refusal's entry is kept until a commit that
  // waits for the disk takes it, so a crash of the database loses none.
  const crashed = troubles.some(
    (t) =>
      ((t.kind === 'db-immediate-restart' && !storageRefusal(op)) || t.kind === 'kill') &&
      t.to >= op.invokedAt &&
      t.from <= Math.min(until, done + CRASH_WINDOW_MS),
  )
  if (!durable && crashed) return false
  if (storageRefusal(op)) {
    const back = databaseBack(done, troubles) + RECOVERY_MS
    if (until < back) return false
    const killed = troubles.some(
      (t) => t.kind === 'kill' && t.replica === op.answer?.replica && t.from >= done && t.from <= back,
    )
    if (killed) return false
  }
  // A create's 201 came after its batch committed, its entry with it.
  const struck = durable ? undefined : batchStruck(op, troubles)
  if (struck !== undefined) {
    const back = struck + RECOVERY_MS
    if (until < back) return false
    // Kept by the namespace's owner, which need not be the replica asked.
    if (troubles.some((t) => t.kind === 'kill' && t.from >= done && t.from <= back)) return false
  }
  return true
}

/** The invariants that broke, each with its operations. */
export function check(history: readonly Op[], troubles: readonly Trouble[], final: Final): Violation[] {
  const violations: Violation[] = []
  const add = (invariant: Invariant, detail: string, ops: readonly string[]): void =>
    void violations.push({ invariant, detail, ops })
  const resets = history.filter((op) => op.kind === 'reset')
  const creates = history.filter((op) => op.kind === 'create')
  const createdNames = new Set(creates.map((op) => op.name))
  // A replica answered these that their commit's outcome is unknown, though the client may not have
  // got that answer (the balancer cut it, or answered in its stead).
  const saidUnknown = new Set(final.sources.flatMap((source) => [...(source.unknown ?? [])]))
  /** The other attempts of a create sent with an Idempotency-Key. */
  const attempts = (op: Op): Op[] => (op.key === undefined ? [] : creates.filter((o) => o !== op && o.key === op.key))
  const mayBeTwice = (op: Op): boolean => outcomeUnknown(op) || (saidUnknown.has(op.id) && !bySandbox(op))

  for (const source of final.sources) {
    const stored = (op: Op): number => (source.pets.get(op.namespace) ?? []).filter((name) => name === op.name).length
    const lost = creates.filter(
      (op) => op.answer?.status === 201 && resetAfter(op, resets) === undefined && stored(op) === 0,
    )
    if (lost.length > 0) add('lost write', `${source.name}: ${lost.length} creates answered 201 are absent`, ids(lost))
    for (const [namespace, all] of source.pets) {
      // The namespace's initial pets may share names: only the creates' unique ones count.
      const names = all.filter((name) => createdNames.has(name))
      const twice = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))]
      const ops = creates.filter((op) => op.namespace === namespace && twice.includes(op.name ?? ''))
      if (twice.length > 0)
        add('duplicated write', `${source.name}: ${namespace} stores ${twice.join(', ')} more than once`, ids(ops))
    }
    // A refused attempt's pet may be another attempt's, sent with the same key.
    const phantom = creates.filter((op) => refused(op) && stored(op) > 0 && !attempts(op).some(mayHaveTaken))
    if (phantom.length > 0)
      add('phantom write', `${source.name}: ${phantom.length} creates refused are stored`, ids(phantom))

    const journaled = (op: Op): number => (source.journal.get(op.namespace) ?? []).filter((id) => id === op.id).length
    const missing = history.filter((op) => journalPromises(op, resets, troubles) && journaled(op) === 0)
    if (missing.length > 0)
      add(
        'unjournaled answered call',
        `${source.name}: ${missing.length} answered calls are not in the journal`,
        ids(missing),
      )
    const again = history.filter((op) => journaled(op) > 1 && !mayBeTwice(op))
    if (again.length > 0)
      add('call journaled twice', `${source.name}: ${again.length} calls have two entries`, ids(again))

    for (const [namespace, faults] of source.faults)
      for (const fault of faults) {
        const older = faults.filter((f) => f.operationId === fault.operationId && f.id < fault.id).length
        const arm = history.find((op) => op.kind === 'arm' && op.namespace === namespace && op.fault?.id === fault.id)
        if (fault.fired > 1)
          add(
            'fault fired more than once',
            `${source.name}: fault ${fault.id} of ${namespace} fired ${fault.fired} times`,
            ids([arm]),
          )
        if (fault.fired === 0 && fault.seen > fault.after + older)
          add(
            'fault due but never fired',
            `${source.name}: fault ${fault.id} of ${namespace} (after ${fault.after}) saw ${fault.seen} calls and fired none`,
            ids([arm]),
          )
      }
  }

  for (const verify of history.filter((op) => op.kind === 'verify' && op.verified?.matched !== undefined)) {
    const { ids: expected, matched = [] } = verify.verified ?? { ids: [] }
    expected.forEach((id, i) => {
      const op = history.find((o) => o.id === id)
      if (op === undefined) return
      // A reset or a crash until the verify's answer may have come before its read of the journal.
      if (matched[i] === 0 && journalPromises(op, resets, troubles, verify.completedAt))
        add('unjournaled answered call', `verify ${verify.id} found no entry of ${id}`, [id, verify.id])
      if ((matched[i] ?? 0) > 1 && !mayBeTwice(op))
        add('call journaled twice', `verify ${verify.id} found ${id} ${matched[i]} times`, [id, verify.id])
    })
  }

  // Read your writes: a pet created (201) and read back later answers 404 only after a reset.
  for (const read of history.filter((op) => op.reads !== undefined && op.answer?.status === 404 && bySandbox(op))) {
    const create = history.find((op) => op.id === read.reads)
    if (create === undefined || create.answer?.status !== 201 || (create.completedAt ?? Infinity) > read.invokedAt)
      continue
    if (resetAfter(create, resets, read.completedAt) === undefined)
      add('lost write', `${read.id} found no pet of ${create.id}, with no reset between`, [create.id, read.id])
  }

  const calm = (op: Op): boolean =>
    !troubles.some((t) => t.from <= (op.completedAt ?? Infinity) && op.invokedAt <= t.to + RECOVERY_MS)
  // A create answered as a replay: an earlier attempt stored its pet, so one that was refused lied.
  for (const replay of creates.filter((op) => op.answer?.replayed === true && bySandbox(op))) {
    const earlier = attempts(replay).filter((o) => o.invokedAt < replay.invokedAt)
    if (earlier.every(refused))
      add('phantom write', `${replay.id} was answered as a replay of attempts all refused`, ids([...earlier, replay]))
  }

  // A key in use says an earlier attempt may still be being written: after an answer that did not say.
  const inUse = (op: Op): boolean =>
    op.answer?.code === 'idempotency_key_in_use' &&
    attempts(op).some((o) => o.invokedAt < op.invokedAt && (o.answer === undefined || ambiguousAnswer(o.answer)))
  const wrongly = creates.filter((op) => refused(op) && op.answer?.code !== 'injected_fault' && !inUse(op) && calm(op))
  if (wrongly.length > 0)
    add('wrongly refused write', `${wrongly.length} creates refused with no trouble under way`, ids(wrongly))

  checkFaults(history, resets, add)

  // A fault armed on listPets may answer the probe: the namespace answered all the same.
  const wedged = final.probes.filter((p) => (p.status !== 200 && p.status !== FAULT_STATUS) || p.ms > WEDGE_MS)
  for (const probe of wedged)
    add(
      'wedged namespace',
      `replica ${probe.replica}: GET of ${probe.namespace} answered ${probe.status ?? probe.error ?? 'nothing'} in ${Math.round(probe.ms)} ms`,
      [],
    )
  return violations
}

/**
 * Faults from the clients' side: at most one answer of each carries it, and one that was due (its
 * `after` calls and one more answered by a replica since it was armed, plus one for each other fault
 * of the operation that may have taken a call first, with no reset between) fired on some call that
 * may have been it: an answer carrying it, or a call with no answer.
 */
function checkFaults(
  history: readonly Op[],
  resets: readonly Op[],
  add: (i: Invariant, d: string, ops: string[]) => void,
) {
  const arms = history.filter((op) => op.kind === 'arm' && op.fault !== undefined)
  for (const arm of arms) {
    const { id, after } = arm.fault ?? { id: 0, after: 0 }
    const armedAt = arm.completedAt ?? Infinity
    const calls = history.filter(
      (op) => op.namespace === arm.namespace && op.operationId === arm.operationId && op.kind !== 'arm',
    )
    const carrying = calls.filter((op) => op.answer?.code === 'injected_fault' && faultId(op) === id)
    if (carrying.length > 1)
      add(
        'fault fired more than once',
        `fault ${id} of ${arm.namespace} answered ${carrying.length} calls`,
        ids([arm, ...carrying]),
      )
    // Until a reset that may have cleared it began.
    const cleared = Math.min(
      ...resets
        .filter((r) => r.namespace === arm.namespace && mayHaveTaken(r) && (r.completedAt ?? Infinity) > arm.invokedAt)
        .map((r) => r.invokedAt),
    )
    const window = calls.filter((op) => op.invokedAt > armedAt && (op.completedAt ?? Infinity) < cleared)
    const counted = window.filter((op) => bySandbox(op) && !storageRefusal(op) && !ambiguousAnswer(op.answer as Answer))
    // Any other arm that may have armed a fault (one with no answer too) may take a call first.
    const others = history.filter(
      (o) =>
        o.kind === 'arm' &&
        o !== arm &&
        mayHaveTaken(o) &&
        o.namespace === arm.namespace &&
        o.operationId === arm.operationId &&
        o.invokedAt < cleared,
    ).length
    const couldBe = calls.filter(
      (op) => (op.completedAt ?? Infinity) > arm.invokedAt && (op.answer === undefined || ambiguousAnswer(op.answer)),
    )
    if (counted.length > after + others && carrying.length === 0 && couldBe.length === 0)
      add(
        'fault due but never fired',
        `fault ${id} of ${arm.namespace} (after ${after}) saw ${counted.length} answered calls and none carried it`,
        ids([arm, ...counted]),
      )
  }
}

function faultId(op: Op): number | undefined {
  const match = /^Fault (\d+) injected/.exec(op.answer?.message ?? '')
  return match ? Number(match[1]) : undefined
}

function ids(ops: readonly (Op | undefined)[]): string[] {
  return ops.filter((op): op is Op => op !== undefined).map((op) => op.id)
}

/** The violations for people: each invariant, its details, and its first operations told in full. */
export function report(violations: readonly Violation[], history: readonly Op[], troubles: readonly Trouble[]): string {
  if (violations.length === 0) return 'every invariant held'
  const byId = new Map(history.map((op) => [op.id, op]))
  const lines: string[] = []
  for (const invariant of [...new Set(violations.map((v) => v.invariant))]) {
    const found = violations.filter((v) => v.invariant === invariant)
    lines.push(`${invariant}: ${found.length} finding(s)`)
    for (const v of found.slice(0, 6)) {
      lines.push(`  ${v.detail}`)
      for (const id of v.ops.slice(0, 5)) {
        const op = byId.get(id)
        if (op !== undefined) lines.push(`    ${describe(op, troubles)}`)
      }
      if (v.ops.length > 5) lines.push(`    … and ${v.ops.length - 5} more: ${v.ops.slice(5, 40).join(' ')}`)
    }
    if (found.length > 6) lines.push(`  … and ${found.length - 6} more findings`)
  }
  return lines.join('\n')
}

const seconds = (ms: Ms | undefined): string => (ms === undefined ? '…' : (ms / 1000).toFixed(2))

/** One operation in a line, with the troubles around it. */
export function describe(op: Op, troubles: readonly Trouble[]): string {
  const answer =
    op.answer === undefined
      ? `no answer (${op.error ?? 'none yet'})`
      : `${op.answer.status}${op.answer.code ? ` ${op.answer.code}` : ''}${op.answer.replica ? ` from replica ${op.answer.replica}` : ' from the balancer'}`
  const what = op.name ?? op.operationId ?? ''
  const near = troubles
    .filter((t) => t.from <= (op.completedAt ?? Infinity) + CRASH_WINDOW_MS && op.invokedAt - RECOVERY_MS <= t.to)
    .map((t) => `${t.kind}${t.replica ? ` ${t.replica}` : ''} ${seconds(t.from)}-${seconds(t.to)}s`)
  return `${op.id} ${op.kind} ${what} in ${op.namespace} ${seconds(op.invokedAt)}-${seconds(op.completedAt)}s: ${answer}${near.length ? `; near ${near.join(', ')}` : ''}`
}
