// A request in a namespace another replica serves, handed to it (its address is kept with its
// lease, leases.ts) and its answer handed back as it is: the owner journals it, once.
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { Agent as SecureAgent, request as secureRequest } from 'node:https'
import type { TLSSocket } from 'node:tls'
import { ANSWER_WITHIN_MS } from './deadline.js'

/**
 * Set on a forwarded request, to the milliseconds the forwarding replica spent on it: the replica it
 * reaches serves it or refuses it, never forwards it again, in the time left (spentBefore).
 */
export const FORWARDED = 'x-sandbox-forwarded'
/**
 * The owner's answer must have started within this, less what the request spent before (asking
 * who the owner is): a replica paused or cut off is not waited for longer. The owner answers within
 * STEPS_WITHIN_MS and the asking of a commit's outcome after the request reached it, before this.
 */
const OWNER_ANSWERS_WITHIN_MS = ANSWER_WITHIN_MS - 500
/** Headers of one connection, not of the request. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
])

const agents = { http: new Agent({ keepAlive: true }), https: new SecureAgent({ keepAlive: true }) }

/** The address this replica was reached at, for other replicas to forward to. */
export function addressOf(req: IncomingMessage): string {
  const { localAddress = '127.0.0.1', localPort } = req.socket
  const host = localAddress.startsWith('::ffff:') ? localAddress.slice('::ffff:'.length) : localAddress
  const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http'
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${localPort}`
}

/**
 * Sends `req` to the replica at `address` and its answer back on `res`: true once it went. False
 * when the owner could not be reached and so was sent nothing (the request is still whole, to be
 * served here); once something may have reached it, a failure cuts the connection, as the owner's
 * own end would have.
 */
export function forward(req: IncomingMessage, res: ServerResponse, address: string, spentMs = 0): Promise<boolean> {
  const target = new URL(req.url ?? '/', address)
  const secure = target.protocol === 'https:'
  const options = { method: req.method, headers: passed(req, spentMs), agent: secure ? agents.https : agents.http }
  return new Promise((resolve) => {
    const out = (secure ? secureRequest : request)(target, options, (answer) => {
      clearTimeout(timer)
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)))
      res.writeHead(answer.statusCode ?? 502, headers)
      answer.pipe(res)
      answer.on('error', () => res.destroy())
    })
    let reached = false
    const send = (): void => {
      reached = true
      resolve(true)
      req.pipe(out)
    }
    out.on('socket', (socket) => {
      if (!socket.connecting) send()
      else socket.once('connect', send)
    })
    const timer = setTimeout(
      () => out.destroy(new Error('the owner did not answer in time')),
      Math.max(0, OWNER_ANSWERS_WITHIN_MS - spentMs),
    )
    out.on('error', () => {
      clearTimeout(timer)
      if (!reached) resolve(false)
      else res.destroy()
    })
    res.on('close', () => {
      if (reached && !res.writableFinished) out.destroy()
    })
  })
}

/** What the replica that forwarded `req` spent on it, as it said (a client's own value only shortens its time). */
export function spentBefore(req: IncomingMessage): number {
  const said = Number(req.headers[FORWARDED])
  return Number.isFinite(said) ? Math.min(Math.max(said, 0), ANSWER_WITHIN_MS) : 0
}

function passed(req: IncomingMessage, spentMs: number): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {}
  for (const [name, value] of Object.entries(req.headers))
    if (!name.startsWith(':') && !HOP_BY_HOP.has(name)) headers[name] = value
  // HTTP/2 names the host in a pseudo-header.
  headers.host ??= req.headers[':authority'] as string | undefined
  headers[FORWARDED] = String(Math.ceil(spentMs))
  return headers
}
