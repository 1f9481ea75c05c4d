// The counts the coverage report is made of, kept as each request is recorded. The journal drops
// its oldest entries; these counts keep every call in a few numbers per operation and answer, so a
// report never depends on what the journal still holds.
import type { Redactor } from './redactor.js'
import { UNMATCHED, type RequestRecord } from './request-record.js'
import type { AnswerTally, InvalidRequest, TallyData, UnmatchedTally } from './tally-data.js'

export type { AnswerTally, InvalidRequest, TallyData, UnmatchedTally }

/** Answers that say the request broke the spec (validation, the body's type or size). */
export const INVALID_STATUSES: ReadonlySet<number> = new Set([400, 413, 415])
/** Distinct values counted per query parameter of an operation, and parameters per operation. */
const MAX_VALUES = 100
const MAX_PARAMETERS = 20
/** Distinct unmatched method, path and status counted one by one; the others only in the total. */
const MAX_UNMATCHED = 1000
/** The invalid requests listed: the latest ones (all are counted). */
export const INVALID_KEPT = 100

export interface ParameterTally {
  /** Calls that sent it. */
  calls: number
  readonly values: Map<string, number>
}

export interface OperationTally {
  calls: number
  readonly answers: Map<string, AnswerTally>
  readonly parameters: Map<string, ParameterTally>
}

export class CoverageTally {
  calls = 0
  readonly operations = new Map<string, OperationTally>()
  readonly unmatched = new Map<string, UnmatchedTally>()
  unmatchedCalls = 0
  invalidCalls = 0
  /** Entries the journal dropped to stay within its bounds (JOURNAL_SIZE, its bytes): still counted here. */
  journalDropped = 0
  /** The latest INVALID_KEPT invalid requests, oldest first. */
  invalid: InvalidRequest[] = []
  /** The last query string counted, parsed and redacted: clients send the same one again and again. */
  #search = ''
  #query: ReadonlyArray<readonly [string, readonly string[]]> = []

  /** Counts one recorded request, `id` its journal id. */
  add(record: RequestRecord, id: number, redactor: Redactor): void {
    this.calls++
    if (record.operationId === UNMATCHED) {
      this.unmatchedCalls++
      const path = redactor.text(record.path)
      const unmatched = { method: record.method, path, status: record.status, calls: 1 }
      addCalls(this.unmatched, `${record.method} ${path} ${record.status}`, unmatched, MAX_UNMATCHED)
    }
    const op = this.#operation(record.operationId)
    op.calls++
    const answer = { status: record.status, code: record.error?.code ?? null, forced: record.fault !== null, calls: 1 }
    addCalls(op.answers, `${answer.status} ${answer.code} ${answer.forced}`, answer)
    if (record.search !== '') {
      if (record.search !== this.#search) {
        const query = Object.entries(redactor.query(record.search))
        ;[this.#search, this.#query] = [record.search, query.map(([name, sent]) => [name, [sent].flat()])]
      }
      for (const [name, sent] of this.#query) {
        const parameter = parameterOf(op, name)
        if (parameter === undefined) continue
        parameter.calls++
        for (const value of sent) addCount(parameter.values, value, 1)
      }
    }
    if (
      record.operationId !== UNMATCHED &&
      record.fault === null &&
      record.error !== undefined &&
      record.status !== null &&
      INVALID_STATUSES.has(record.status)
    ) {
      this.invalidCalls++
      this.invalid.push({
        id,
        namespace: record.namespace,
        operationId: record.operationId,
        method: record.method,
        path: redactor.text(record.path),
        status: record.status,
        code: record.error.code,
        message: redactor.text(record.error.message),
      })
      if (this.invalid.length > INVALID_KEPT) this.invalid.shift()
    }
  }

  /**
   * Its counts as plain data (a shared database keeps them), and back. Copies both ways: a dump
   * stays as it was while the tally goes on counting, and a tally loaded counts on in its own objects.
   */
  dump(): TallyData {
    return {
      calls: this.calls,
      unmatchedCalls: this.unmatchedCalls,
      invalidCalls: this.invalidCalls,
      journalDropped: this.journalDropped,
      invalid: [...this.invalid],
      unmatched: [...this.unmatched].map(([key, u]) => [key, { ...u }]),
      operations: [...this.operations].map(([id, op]) => [
        id,
        {
          calls: op.calls,
          answers: [...op.answers].map(([key, a]) => [key, { ...a }]),
          parameters: [...op.parameters].map(([name, p]) => [name, { calls: p.calls, values: [...p.values] }]),
        },
      ]),
    }
  }

  static load(data: TallyData): CoverageTally {
    const tally = new CoverageTally()
    tally.calls = data.calls
    tally.unmatchedCalls = data.unmatchedCalls
    tally.invalidCalls = data.invalidCalls
    tally.journalDropped = data.journalDropped
    tally.invalid = [...data.invalid]
    for (const [key, u] of data.unmatched) tally.unmatched.set(key, { ...u })
    for (const [id, op] of data.operations)
      tally.operations.set(id, {
        calls: op.calls,
        answers: new Map(op.answers.map(([key, a]) => [key, { ...a }])),
        parameters: new Map(op.parameters.map(([name, p]) => [name, { calls: p.calls, values: new Map(p.values) }])),
      })
    return tally
  }

  /** Adds another tally's counts to these. */
  absorb(other: CoverageTally): void {
    this.calls += other.calls
    this.unmatchedCalls += other.unmatchedCalls
    this.invalidCalls += other.invalidCalls
    this.journalDropped += other.journalDropped
    for (const [key, u] of other.unmatched) addCalls(this.unmatched, key, u, MAX_UNMATCHED)
    if (other.invalid.length > 0) this.invalid = [...this.invalid, ...other.invalid].slice(-INVALID_KEPT)
    for (const [operationId, theirs] of other.operations) {
      const op = this.#operation(operationId)
      op.calls += theirs.calls
      for (const [key, a] of theirs.answers) addCalls(op.answers, key, a)
      for (const [name, p] of theirs.parameters) {
        const parameter = parameterOf(op, name)
        if (parameter === undefined) continue
        parameter.calls += p.calls
        for (const [value, n] of p.values) addCount(parameter.values, value, n)
      }
    }
  }

  #operation(operationId: string): OperationTally {
    let op = this.operations.get(operationId)
    if (op === undefined)
      this.operations.set(operationId, (op = { calls: 0, answers: new Map(), parameters: new Map() }))
    return op
  }
}

/** Adds `counted`'s calls to those of `key`, or keeps a copy of it while `map` holds fewer than `max`. */
function addCalls<T extends { calls: number }>(map: Map<string, T>, key: string, counted: T, max = Infinity): void {
  const seen = map.get(key)
  if (seen) seen.calls += counted.calls
  else if (map.size < max) map.set(key, { ...counted })
}

function addCount(values: Map<string, number>, value: string, n: number): void {
  const seen = values.get(value)
  if (seen !== undefined) values.set(value, seen + n)
  else if (values.size < MAX_VALUES) values.set(value, n)
}

/** The counts of an operation's query parameter; undefined past MAX_PARAMETERS. */
function parameterOf(op: OperationTally, name: string): ParameterTally | undefined {
  let parameter = op.parameters.get(name)
  if (parameter === undefined && op.parameters.size < MAX_PARAMETERS)
    op.parameters.set(name, (parameter = { calls: 0, values: new Map() }))
  return parameter
}
