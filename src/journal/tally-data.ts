// A tally of calls (coverage-tally.ts) as plain data: what a shared database keeps, and what a
// record that stands for calls never journaled carries (request-record.ts).

/** How often an operation was answered with one status and Error code, forced or not. */
export interface AnswerTally {
  readonly status: number | null
  readonly code: string | null
  /** Shaped by a fault or a Prefer header. */
  readonly forced: boolean
  calls: number
}

export interface UnmatchedTally {
  readonly method: string
  readonly path: string
  readonly status: number | null
  calls: number
}

export interface InvalidRequest {
  readonly id: number
  readonly namespace: string
  readonly operationId: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly code: string
  readonly message: string
}

/** A tally as plain data: its maps as arrays of entries. */
export interface TallyData {
  readonly calls: number
  readonly unmatchedCalls: number
  readonly invalidCalls: number
  readonly journalDropped: number
  readonly invalid: InvalidRequest[]
  readonly unmatched: [string, UnmatchedTally][]
  readonly operations: [
    string,
    {
      calls: number
      answers: [string, AnswerTally][]
      parameters: [string, { calls: number; values: [string, number][] }][]
    },
  ][]
}
