// Faults and latency on demand. A fault armed through POST /__admin/faults acts on calls of one
// operation: it lets the first `after` pass, acts on the next `times` (every one when `times` is
// not given), then the operation answers normally again. Per request, `Prefer: code=<status>` and
// `Prefer: delay=<ms>` (Prism's convention) do the same without the control API.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import { API_KEY } from '../pipeline/auth.js'
import { sendJsonText } from '../http/reply.js'
import type { Operation } from '../contract/types.js'
import { chance, newSeed } from './chance.js'

/** The longest delay a fault or a Prefer header may ask for. */
export const MAX_DELAY_MS = 30_000

/** Faults a namespace keeps armed at once: a test arms a few, and each is kept until cleared. */
export const MAX_FAULTS = 100

/** The operationId of a fault that acts on calls of every operation. */
export const ANY_OPERATION = '*'

/** The calls a fault keeps as hit (the first ones): what a bundle hands to a replay or a shrink. */
export const MAX_HITS = 1000

export const FAULT_KINDS = ['connection-reset', 'empty-response', 'malformed-body'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface NewFault {
  readonly operationId: string
  readonly status?: number | undefined
  readonly delayMs?: number | undefined
  readonly fault?: FaultKind | undefined
  readonly times?: number | undefined
  readonly after?: number | undefined
  /** Seeded chaos: the chance that it acts on each call it is due on, drawn from `seed`. */
  readonly probability?: number | undefined
  readonly seed?: number | undefined
}

/** A call a fault acted on: the `call`th call of `operationId` it saw. */
export interface FaultHit {
  readonly operationId: string
  readonly call: number
}

export interface Fault extends NewFault {
  readonly id: number
  /** Matching calls so far. */
  seen: number
  /** Calls it has acted on. */
  fired: number
  /** The first MAX_HITS calls it acted on. */
  hits: FaultHit[]
  /** For a fault on every operation: the calls of each it saw, which number its hits. */
  seenBy?: Record<string, number>
}

export class Faults {
  #faults: Fault[] = []
  #nextId = 1

  get length(): number {
    return this.#faults.length
  }

  add(fault: NewFault): Fault {
    const seed = fault.probability === undefined ? {} : { seed: fault.seed ?? newSeed() }
    const armed: Fault = { ...fault, ...seed, after: fault.after ?? 0, id: this.#nextId++, seen: 0, fired: 0, hits: [] }
    this.#faults.push(armed)
    return armed
  }

  list(): readonly Fault[] {
    return this.#faults
  }

  clear(): number {
    const cleared = this.#faults.length
    this.#faults = []
    return cleared
  }

  /** Disarms the fault `id`: it as it ended, or undefined when none is armed. */
  remove(id: number): Fault | undefined {
    const index = this.#faults.findIndex((fault) => fault.id === id)
    return index === -1 ? undefined : this.#faults.splice(index, 1)[0]
  }

  /** What a shared database keeps of them: each with its counters, and the next id. */
  dump(): { nextId: number; faults: Fault[] } {
    return { nextId: this.#nextId, faults: this.#faults.map((fault) => ({ ...fault, hits: [...fault.hits] })) }
  }

  restore({ nextId, faults }: { nextId: number; faults: Fault[] }): void {
    this.#nextId = nextId
    this.#faults = faults.map((fault) => ({ ...fault, hits: [...(fault.hits ?? [])] }))
  }

  /**
   * Counts a call of `operationId` and returns the fault that acts on it, if any. Every fault of
   * the operation sees the call; the oldest one that is due acts on it. One with a probability is
   * due on a call when the draw of its seed for that call falls under it.
   */
  take(operationId: string): Fault | undefined {
    let acting: Fault | undefined
    for (const fault of this.#faults) {
      const any = fault.operationId === ANY_OPERATION
      if (!any && fault.operationId !== operationId) continue
      fault.seen++
      const call = any ? countCall(fault, operationId) : fault.seen
      const due =
        fault.seen > (fault.after ?? 0) &&
        (fault.times === undefined || fault.fired < fault.times) &&
        (fault.probability === undefined || chance(fault.seed ?? 0, fault.seen) < fault.probability)
      if (due && acting === undefined) {
        fault.fired++
        if (fault.hits.length < MAX_HITS) fault.hits.push({ operationId, call })
        acting = fault
      }
    }
    return acting
  }
}

/** Counts a call of `operationId` for a fault on every operation; returns its number. */
function countCall(fault: Fault, operationId: string): number {
  const call = (fault.seenBy?.[operationId] ?? 0) + 1
  // A new object, as a dump of the faults (a shared database's) shares this one.
  fault.seenBy = { ...fault.seenBy, [operationId]: call }
  return call
}

/** What a request's Prefer header asks for. */
export interface Preference {
  readonly code: number | undefined
  readonly delayMs: number | undefined
}

const NO_PREFERENCE: Preference = Object.freeze({ code: undefined, delayMs: undefined })

/** Reads `Prefer: code=404, delay=200` (RFC 7240 syntax; other preferences are ignored). */
export function readPrefer(req: IncomingMessage): Preference {
  const header = req.headers['prefer']
  if (header === undefined) return NO_PREFERENCE
  const values = new Map<string, string>()
  for (const part of [header].flat().join(',').split(/[,;]/)) {
    const [name, value] = part.split('=').map((s) => s.trim().replace(/^"|"$/g, ''))
    if (name) values.set(name.toLowerCase(), value ?? '')
  }
  const code = values.get('code')
  const delay = values.get('delay')
  if (code !== undefined && !/^[1-5]\d\d$/.test(code))
    throw invalidPrefer(`code must be an HTTP status, got ${JSON.stringify(code)}`)
  if (delay !== undefined && (!/^\d{1,9}$/.test(delay) || Number(delay) > MAX_DELAY_MS)) {
    throw invalidPrefer(
      `delay must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}, got ${JSON.stringify(delay)}`,
    )
  }
  return {
    code: code === undefined ? undefined : Number(code),
    delayMs: delay === undefined ? undefined : Number(delay),
  }
}

function invalidPrefer(problem: string): HttpError {
  return new HttpError(ERRORS.invalidParameter, `Invalid Prefer header: ${problem}`)
}

/** Waits `ms`, or less if the client goes away meanwhile. */
export function delay(ms: number, res: ServerResponse): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      res.off('close', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    res.once('close', done)
  })
}

/** Breaks the exchange the way `kind` says. The response is finished (or the socket gone) afterwards. */
export function breakResponse(kind: FaultKind, req: IncomingMessage, res: ServerResponse, status = 200): void {
  switch (kind) {
    case 'connection-reset':
      // A TCP RST: the client sees ECONNRESET, as when a proxy or the server crashes.
      req.socket.resetAndDestroy()
      return
    case 'empty-response':
      // The connection closes before a byte of the answer.
      req.socket.destroy()
      return
    case 'malformed-body': {
      sendJsonText(res, status, '{"id": 1, "name": "Rex", "categoryId": ')
      return
    }
  }
}

/** The status an operation answers when it succeeds: what a broken answer would have carried. */
export function successStatus(op: Operation): number {
  return Number(op.responses.find((code) => /^2\d\d$/.test(code)) ?? 200)
}

/** A fault as the journal shows it. */
export function describeFault(fault: Fault): string {
  const parts = [
    fault.fault,
    fault.status === undefined ? undefined : `status ${fault.status}`,
    fault.delayMs ? `delay ${fault.delayMs}ms` : undefined,
  ]
  return `fault ${fault.id}: ${parts.filter(Boolean).join(', ')}`
}

/**
 * The headers a genuine answer with `status` carries, for a forced one (a fault, Prefer): a client
 * tested against a forced 401 must meet the WWW-Authenticate of a real one. The operation's own
 * headers (deprecation) go on every answer anyway.
 */
export function twinHeaders(status: number, { allow }: Exchange): Readonly<Record<string, string>> | undefined {
  switch (status) {
    case 401:
      return { 'WWW-Authenticate': API_KEY.realm }
    case 405:
      return allow === undefined ? undefined : { Allow: allow }
    case 429:
    case 503:
      return RETRY_AFTER
    default:
      return undefined
  }
}
