// A namespace's row held for one request (Sharing.hold, shared-state.ts): written back and
// committed before the answer, or rolled back; either way the row and the connection are let go.
import type pg from 'pg'
import type { Namespace } from '../namespaces/namespace.js'
import type { RequestRecord } from '../journal/request-record.js'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import type { Lease } from './leases.js'
import { isOutage, unknownOutcome, type Database, type Transaction } from './database.js'
import { STEPS_WITHIN_MS } from './deadline.js'

/** A namespace that could not be held within STEPS_WITHIN_MS: the database is slow or away. */
export function tooSlow(): HttpError {
  return new HttpError(
    ERRORS.storageUnavailable,
    `The database did not answer within ${STEPS_WITHIN_MS} ms; nothing was changed`,
    RETRY_AFTER,
  )
}

/** What a hold asks of the replica's sharing. */
export interface Holder {
  readonly database: Database
  /**
   * Writes back what the request changed and commits by `due`, on the held row's connection,
   * fenced by the lease (none: only read); `late`: it carries entries kept while the database was
   * away, and waits for the disk.
   */
  give(client: pg.PoolClient, namespace: Namespace, lease: Lease | undefined, due: number, late: boolean): Promise<void>
  /** The namespace is read whole from the database at its next hold. */
  forget(namespace: Namespace): void
  /** An outage as its 503; anything else but an HttpError logged. */
  failure(error: unknown): unknown
  /** Keeps entries for the namespace's journal until its next hold. */
  later(name: string, ...entries: RequestRecord[]): void
  /** The same, for entries a commit of unknown outcome carried: journaled there unless it took. */
  doubt(name: string, ...entries: RequestRecord[]): void
  /** Entries a commit carried where they belong (the journal, or the owner's hand): their rows are no longer kept here. */
  carried(name: string, ...entries: RequestRecord[]): void
  /** After a commit of unknown outcome: the lease is taken again at a new epoch, which fences it off should it land later. */
  leaseLost(name: string, error: unknown): void
}

/** A namespace's row, locked until the request's answer is committed. */
export class Hold {
  readonly #sharing: Holder
  readonly #client: pg.PoolClient
  readonly #namespace: Namespace
  readonly #transaction: Transaction
  /** Entries of requests answered while the database was away, journaled by this hold's commit. */
  readonly #late: readonly RequestRecord[]
  #ended: Promise<void> | undefined

  readonly #letGo: () => void
  readonly #lease: Lease | undefined
  /** When its commit must be answered: its request's steps end then. */
  readonly #due: number

  constructor(
    sharing: Holder,
    client: pg.PoolClient,
    namespace: Namespace,
    transaction: Transaction,
    letGo: () => void,
    late: readonly RequestRecord[],
    lease: Lease | undefined,
    due: number,
  ) {
    this.#lease = lease
    this.#due = due
    this.#sharing = sharing
    this.#client = client
    this.#namespace = namespace
    this.#transaction = transaction
    this.#letGo = letGo
    this.#late = late
  }

  /** Writes back what changed and commits: the answer may go out once this resolves. */
  release(): Promise<void> {
    return (this.#ended ??= this.#commit().finally(this.#letGo))
  }

  /** Lets go without writing (the request failed): the namespace is read anew at its next hold. */
  abandon(): Promise<void> {
    this.#ended ??= this.#rollback(false).finally(() => {
      this.#sharing.later(this.#namespace.name, ...this.#late)
      this.#letGo()
    })
    return this.#ended
  }

  async #commit(): Promise<void> {
    try {
      await this.#sharing.give(this.#client, this.#namespace, this.#lease, this.#due, this.#late.length > 0)
      this.#client.release()
      this.#sharing.carried(this.#namespace.name, ...this.#late)
    } catch (error) {
      const outage = isOutage(error)
      await this.#rollback(outage)
      // The connection went with the commit on its way: the answer says what became of it.
      const committed = outage ? await this.#sharing.database.committed(this.#transaction) : false
      if (committed === true) return this.#sharing.carried(this.#namespace.name, ...this.#late)
      // Entries the commit carried: journaled again, unless the commit may have taken them there.
      if (committed === false) {
        this.#sharing.later(this.#namespace.name, ...this.#late)
        throw this.#sharing.failure(error)
      }
      this.#sharing.doubt(this.#namespace.name, ...this.#late)
      this.#sharing.leaseLost(this.#namespace.name, error)
      throw unknownOutcome()
    }
  }

  /** Rolls back, or only cuts the connection when the database is away (the server rolls back what it had). */
  async #rollback(cut: boolean): Promise<void> {
    this.#sharing.forget(this.#namespace)
    if (!cut) await this.#client.query('ROLLBACK').catch(() => undefined)
    this.#client.release(true)
  }
}
