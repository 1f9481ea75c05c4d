// One request as the server hands it to its namespace's journal and coverage counts: references to
// what the server has anyway; the work of showing it (redaction, parsing the body) is done on read.
import type { IncomingHttpHeaders } from 'node:http'
import type { TallyData } from './tally-data.js'

/** The operationId of a request no operation matched. */
export const UNMATCHED = 'unmatched'

export interface AnsweredError {
  readonly code: string
  readonly message: string
}

export interface RequestRecord {
  /** Epoch milliseconds. */
  readonly time: number
  readonly namespace: string
  readonly method: string
  readonly path: string
  /** The query string with its `?`, or empty. */
  readonly search: string
  readonly headers: IncomingHttpHeaders
  /** The bytes received, when the body was read. */
  readonly body: Buffer | undefined
  /** Null when a fault closed the connection without an answer. */
  readonly status: number | null
  readonly durationMs: number
  readonly operationId: string
  /** The fault or Prefer that shaped the answer, if any. */
  readonly fault: string | null
  readonly error: AnsweredError | undefined
  /** False when the request carried no valid API key: the journal keeps it apart. */
  readonly authenticated: boolean
  readonly traceId: string | undefined
  /**
   * Set on a record that stands for calls answered but never kept for the journal (a replica's
   * answers while its database was away, past what it keeps): their counts, which the journal adds
   * to its own as calls it dropped.
   */
  readonly dropped?: TallyData
}
