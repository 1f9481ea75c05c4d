// Which replica serves a namespace: the one holding its lease in the database (table leases). A
// lease lasts LEASE_MS and its owner renews it every RENEW_EVERY_MS; taking one that expired, or
// that another replica held, raises its epoch, and every write transaction of the owner is fenced
// by that epoch (fence(), the migration's function), so a replica that lost a lease (paused,
// partitioned) never commits for that namespace again. The owner trusts its lease without asking
// only until its own monotonic clock says LEASE_MS less MARGIN_MS from the renewal's sending.
import { randomUUID } from 'node:crypto'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import type { Database } from './database.js'
import { before } from './deadline.js'

export const LEASE_MS = 2_000
const RENEW_EVERY_MS = 500
const MARGIN_MS = 500
/** A request asks the database who serves its namespace for at most this long: its own bound is 5 s. */
const ASK_WITHIN_MS = 1_500
/** After the database failed to answer a taking, takings fail at once for this long. */
const FAILED_FOR_MS = 250
/** A lease not used for this long is no longer renewed: it lapses, and its namespace may move. */
const KEPT_UNUSED_MS = 30_000

/** This replica's lease of one namespace. */
export interface Lease {
  readonly name: string
  readonly owner: string
  readonly epoch: string
}

/** Who holds a namespace's lease when this replica does not: where its requests go. */
export interface Elsewhere {
  readonly address: string
}

interface Mine {
  epoch: string
  /** performance.now() until which the lease is certainly this replica's. */
  validUntil: number
  usedAt: number
}

interface Theirs {
  readonly address: string
  readonly validUntil: number
}

export class Leases {
  /** This replica's name in the table: new at each start, so a restarted replica owns nothing. */
  readonly owner = randomUUID()
  /** The address other replicas forward to: the one this replica was first reached at. */
  address: string | undefined
  readonly #database: Database
  readonly #mine = new Map<string, Mine>()
  readonly #theirs = new Map<string, Theirs>()
  #timer: NodeJS.Timeout | undefined
  #failed: { readonly error: unknown; readonly until: number } | undefined
  /** Namespaces whose next taking here raises the epoch: a commit this replica gave up on may land later. */
  readonly #anew = new Set<string>()
  /** The renewal under way, which a release waits for (it could otherwise extend what was released). */
  #renewing: Promise<void> = Promise.resolve()

  constructor(database: Database) {
    this.#database = database
  }

  /** The lease of `name` while this replica certainly holds it; undefined once it must ask. */
  valid(name: string): Lease | undefined {
    const mine = this.#mine.get(name)
    const now = performance.now()
    if (mine === undefined || now >= mine.validUntil) return undefined
    mine.usedAt = now
    return { name, owner: this.owner, epoch: mine.epoch }
  }

  /** The namespaces whose leases this replica certainly holds now. */
  held(): string[] {
    const now = performance.now()
    return [...this.#mine].filter(([, mine]) => now < mine.validUntil).map(([name]) => name)
  }

  /** The replica that certainly holds `name`, as far as this one heard within the lease's time. */
  elsewhere(name: string): Elsewhere | undefined {
    const theirs = this.#theirs.get(name)
    if (theirs === undefined || performance.now() >= theirs.validUntil) return undefined
    return theirs
  }

  /**
   * The replica last heard to hold `name`, however long ago: where a request goes when the database
   * does not say in time. It serves the request, or refuses a change if the lease moved.
   */
  lastHeld(name: string): Elsewhere | undefined {
    return this.#theirs.get(name)
  }

  /** Forgets that another replica held `name` (it did not answer): asked again next time. */
  forgetElsewhere(name: string): void {
    this.#theirs.delete(name)
  }

  /**
   * Takes the lease of `name` when it is free, expired or this replica's already (then renewed,
   * its epoch kept unless `anew` asked for a new one): the lease, with `moved` when its epoch is
   * new here. Another replica's that has not expired: where it is.
   */
  async take(name: string, again = true): Promise<{ lease: Lease; moved: boolean } | Elsewhere> {
    const sent = performance.now()
    // The database just failed to answer: a request asks it once, not once more for its hold.
    if (this.#failed !== undefined && sent < this.#failed.until) throw this.#failed.error
    const anew = this.#anew.delete(name)
    const asking = this.#database.query<{ owner: string; address: string; epoch: string; left: number }>(
      `WITH taken AS (
         INSERT INTO leases AS l (name, owner, address, epoch, expires)
         VALUES ($1, $2, $3, 1, now() + make_interval(secs => $4 / 1000.0))
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, address = EXCLUDED.address,
           epoch = CASE WHEN l.owner = EXCLUDED.owner AND NOT $5 THEN l.epoch ELSE l.epoch + 1 END,
           expires = EXCLUDED.expires
         WHERE l.owner = EXCLUDED.owner OR l.expires < now()
         RETURNING owner, address, epoch::text, $4::float8 AS left
       )
       SELECT * FROM taken
       UNION ALL
       SELECT owner, address, epoch::text, extract(epoch FROM expires - now()) * 1000 AS left
       FROM leases WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM taken)`,
      [name, this.owner, this.address ?? '', LEASE_MS, anew],
    )
    const { rows } = await before(sent + ASK_WITHIN_MS, asking, tooSlow).catch((error: unknown) => {
      asking.catch(() => undefined)
      if (anew) this.#anew.add(name)
      this.#failed = { error, until: performance.now() + FAILED_FOR_MS }
      throw error
    })
    const row = rows[0]
    // Another replica took it first, after this statement began: it is read again, for the row this
    // statement saw is the one from before (a lease that had expired, of a replica that lost it).
    const overtaken = row === undefined || (row.owner !== this.owner && Number(row.left) <= 0)
    if (overtaken && again) return this.take(name, false)
    if (row === undefined) throw new Error(`the lease of namespace ${name} was neither taken nor found`)
    if (row.owner !== this.owner) {
      this.#mine.delete(name)
      const theirs = { address: row.address, validUntil: sent + Number(row.left) - MARGIN_MS }
      this.#theirs.set(name, theirs)
      return theirs
    }
    this.#theirs.delete(name)
    // A commit given up on while this taking flew may land under the epoch it brought back.
    if (this.#anew.has(name)) return this.take(name, again)
    const held = this.#mine.get(name)
    const moved = held?.epoch !== row.epoch
    this.#mine.set(name, { epoch: row.epoch, validUntil: sent + LEASE_MS - MARGIN_MS, usedAt: performance.now() })
    this.#renewSoon()
    return { lease: { name, owner: this.owner, epoch: row.epoch }, moved }
  }

  /** This replica no longer holds `name` (a write was fenced off): it is asked again next time. */
  lost(name: string): void {
    this.#mine.delete(name)
  }

  /**
   * A commit in `name` was sent and its outcome stayed unknown: it may still reach the database,
   * from a connection this replica gave up on. The lease is taken again at a new epoch, which its
   * fence refuses, before anything more is committed there.
   */
  anew(name: string): void {
    this.#mine.delete(name)
    this.#anew.add(name)
  }

  /** Renews the leases used lately, in one statement; those not renewed are lost. */
  async #renew(): Promise<void> {
    const now = performance.now()
    for (const [name, mine] of this.#mine) if (now - mine.usedAt > KEPT_UNUSED_MS) this.#mine.delete(name)
    if (this.#mine.size === 0) return
    const names = [...this.#mine.keys()]
    const sent = performance.now()
    const { rows } = await this.#database.query<{ name: string; epoch: string }>(
      `UPDATE leases SET expires = now() + make_interval(secs => $3 / 1000.0)
       WHERE owner = $1 AND name = ANY($2::text[]) RETURNING name, epoch::text`,
      [this.owner, names, LEASE_MS],
    )
    const renewed = new Map(rows.map((row) => [row.name, row.epoch]))
    for (const name of names) {
      const mine = this.#mine.get(name)
      if (mine === undefined) continue
      if (renewed.get(name) === mine.epoch) mine.validUntil = sent + LEASE_MS - MARGIN_MS
      else this.#mine.delete(name)
    }
  }

  #renewSoon(): void {
    if (this.#timer !== undefined) return
    this.#timer = setTimeout(() => {
      // A failed renewal (the database away) lets the leases run out on their own.
      this.#renewing = this.#renew()
        .catch(() => undefined)
        .finally(() => {
          this.#timer = undefined
          if (this.#mine.size > 0) this.#renewSoon()
        })
    }, RENEW_EVERY_MS)
    this.#timer.unref()
  }

  /** As the replica stops cleanly: its leases end now, so other replicas take its namespaces at once. */
  async release(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const names = [...this.#mine.keys()]
    this.#mine.clear()
    await this.#renewing
    if (names.length === 0) return
    await this.#database.query(
      `UPDATE leases SET expires = now() - interval '1 second' WHERE owner = $1 AND name = ANY($2::text[])`,
      [this.owner, names],
    )
  }
}

/**
 * A write refused because another replica wrote the namespace since: by fence() (the lease moved),
 * or because the database holds already a journal entry or pet of an id the write gives (memory is
 * behind the database: an entry is never dropped for another's id, nor written over it).
 */
export function fencedOff(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === 'SB001' || writtenOver(error)
}

/** A unique violation: the database holds a row of that id already. */
export function writtenOver(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === '23505'
}

function tooSlow(): HttpError {
  return new HttpError(
    ERRORS.storageUnavailable,
    `The database did not say within ${ASK_WITHIN_MS} ms which replica serves the namespace; nothing was changed`,
    RETRY_AFTER,
  )
}

/** A change in a namespace another replica serves (its lease moved there meanwhile). */
export function moved(name: string): HttpError {
  return new HttpError(
    ERRORS.storageUnavailable,
    `Namespace ${JSON.stringify(name)} moved to another replica as this request came; nothing was changed`,
    RETRY_AFTER,
  )
}
