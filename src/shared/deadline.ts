// How long a request may wait for the shared database: each step is bounded, and so is the whole
// request, so that a database that stalls or slows down is answered within ANSWER_WITHIN_MS.
import type pg from 'pg'

/**
 * The bound on each step of a request with the database (a connection, a statement, a lock wait):
 * a database that stalls is answered 503 with Retry-After within a few seconds, never a hung request.
 */
export const DATABASE_TIMEOUT_MS = 3_000
/** How long a commit whose connection was lost waits for the database to say how it ended. */
export const OUTCOME_WITHIN_MS = 1_000
/** A request is answered within this, however slow the database is at each step. */
export const ANSWER_WITHIN_MS = 5_000
/**
 * A request's steps with the database end this long after it came, at the latest: what is left of
 * ANSWER_WITHIN_MS asks how a commit cut off ended (OUTCOME_WITHIN_MS), and answers, through the
 * replica that forwarded the request too.
 */
export const STEPS_WITHIN_MS = ANSWER_WITHIN_MS - OUTCOME_WITHIN_MS - 750

/** When the steps of a request that came at `came` (Exchange.came) must end; undefined: each step has its own bound. */
export function dueOf(came: number | undefined): number | undefined {
  return came === undefined ? undefined : came + STEPS_WITHIN_MS
}

/** A request's steps ran out of time: a COMMIT not sent by then changed nothing. */
export class TooLate extends Error {
  constructor() {
    super(`timeout: the database was too slow to answer within ${ANSWER_WITHIN_MS} ms`)
  }
}

/**
 * The bound on the next step of a request whose steps end at `due` (performance.now()):
 * DATABASE_TIMEOUT_MS, less as `due` nears. Throws TooLate past it, before the step is sent.
 */
export function stepTimeout(due: number | undefined): number {
  if (due === undefined) return DATABASE_TIMEOUT_MS
  const left = Math.floor(due - performance.now())
  if (left < 1) throw new TooLate()
  return Math.min(DATABASE_TIMEOUT_MS, left)
}

/** A query answered within stepTimeout(due): pg reads `query_timeout` of a query too, though its types leave it out. */
export function bounded(text: string, due: number | undefined): pg.QueryConfig {
  return { text, query_timeout: stepTimeout(due) } as pg.QueryConfig
}

/**
 * `work`, or the error `late()` makes (TooLate) once `due` passes first: a statement of its may
 * still be under way (its connection is not reused).
 */
export async function before<T>(
  due: number | undefined,
  work: Promise<T>,
  late: () => Error = () => new TooLate(),
): Promise<T> {
  if (due === undefined) return work
  let timer: NodeJS.Timeout | undefined
  const tooLate = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, due - performance.now()))
  })
  return Promise.race([work, tooLate]).finally(() => clearTimeout(timer))
}
