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

/** The longest delay a fault or a Prefer header may ask for. */
export const MAX_DELAY_MS = 30_000

/** Faults a namespace keeps armed at once: a test arms a few, and each is kept until cleared. */
export const MAX_FAULTS = 100

export const FAULT_KINDS = ['connection-reset', 'empty-response', 'malformed-body'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export interface NewFault {
  readonly operationId: string
  readonly status?: number | undefined
  readonly delayMs?: number | undefined
  readonly fault?: FaultKind | undefined
  readonly times?: number | undefined
  readonly after?: number | undefined
}

export interface Fault extends NewFault {
  readonly id: number
  /** Matching calls so far. */
  seen: number
  /** Calls it has acted on. */
  fired: number
}

export class Faults {
  #faults: Fault[] = []
  #nextId = 1

  get length(): number {
    return this.#faults.length
  }

  add(fault: NewFault): Fault {
    const armed: Fault = { ...fault, after: fault.after ?? 0, id: this.#nextId++, seen: 0, fired: 0 }
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

  /** What a shared database keeps of them: each with its counters, and the next id. */
  dump(): { nextId: number; faults: Fault[] } {
    return { nextId: this.#nextId, faults: this.#faults.map((fault) => ({ ...fault })) }
  }

  restore({ nextId, faults }: { nextId: number; faults: Fault[] }): void {
    this.#nextId = nextId
    this.#faults = faults.map((fault) => ({ ...fault }))
  }

  /**
   * Counts a call of `operationId` and returns the fault that acts on it, if any. Every fault of
   * the operation sees the call; the oldest one that is due acts on it.
   */
  take(operationId: string): Fault | undefined {
    let acting: Fault | undefined
    for (const fault of this.#faults) {
      if (fault.operationId !== operationId) continue
      fault.seen++
      const due = fault.seen > (fault.after ?? 0) && (fault.times === undefined || fault.fired < fault.times)
      if (due && acting === undefined) {
        fault.fired++
        acting = fault
      }
    }
    return acting
  }
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
