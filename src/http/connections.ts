// Who may hold the server's connections. A plain cap lets one slow client (slowloris) lock out
// everyone, health checks included: here, past the cap (overall or for the client's address), the
// connection that has waited longest with no request in progress makes room. Requests in progress
// are never cut, so they are bounded instead: API requests keep off the reserved connections of
// each cap, which keep health checks and the control API answered while the rest are busy.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ERRORS, HttpError, RETRY_AFTER, sendError } from './errors.js'

export interface ConnectionLimits {
  /** Connections open at once; past it, the one waiting longest makes room. */
  readonly maxConnections: number
  /** Connections one address may hold; the rest of the cap stays open to other addresses. */
  readonly maxConnectionsPerAddress: number
  /** Of each cap, the connections only requests other than the API's (health, control) may be served on. */
  readonly reservedConnections: number
}

export interface Requests {
  readonly serve: RequestListener
  /** Whether a request may not take a reserved connection: an API request. */
  readonly unreserved: (req: IncomingMessage) => boolean
}

interface Held {
  readonly socket: Socket
  readonly address: string
  /** The answers in progress: one at a time over HTTP/1.1, one per stream over HTTP/2. */
  readonly serving: Set<ServerResponse>
  /** Whether it has carried a request: an idle keep-alive connection rather than a silent or slow one. */
  served: boolean
}

/** The connection's entry, on its socket (an HTTP/2 request's socket is a Proxy that hands it on). */
const HELD = Symbol('held')
type Tagged = Socket & { [HELD]?: Held }

/** Enforces `limits` and serves `requests`, in place of node:http's maxConnections, which refuses at the cap. */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  requests: Requests,
  opened: 'connection' | 'secureConnection' = 'connection',
): void {
  // By address, each in the order its connections last had nothing in progress (oldest first).
  const byAddress = new Map<string, Map<Socket, Held>>()
  let open = 0
  // Unreserved requests (the API's) in progress, overall and by address.
  let unreservedServing = 0
  const unreservedByAddress = new Map<string, number>()
  const countUnreserved = (address: string, delta: number): void => {
    unreservedServing += delta
    const count = (unreservedByAddress.get(address) ?? 0) + delta
    if (count === 0) unreservedByAddress.delete(address)
    else unreservedByAddress.set(address, count)
  }
  const unreservedFull = (address: string): boolean =>
    unreservedServing >= limits.maxConnections - limits.reservedConnections ||
    (unreservedByAddress.get(address) ?? 0) >= limits.maxConnectionsPerAddress - limits.reservedConnections

  const waiting = (held: Held): boolean => [...held.serving].every((res) => res.writableEnded)

  /** Of `address`, the longest waiting: a silent one first, an idle keep-alive one (racing its next request) last. */
  const longestWaiting = (address: string): Held | undefined => {
    let idle: Held | undefined
    for (const held of byAddress.get(address)?.values() ?? []) {
      if (!waiting(held)) continue
      if (!held.served) return held
      idle ??= held
    }
    return idle
  }

  /** At the overall cap: the longest waiting connection of the address holding the most. */
  const victimOverall = (): Held | undefined => {
    const addresses = [...byAddress].sort(([, a], [, b]) => b.size - a.size)
    for (const [address] of addresses) {
      const held = longestWaiting(address)
      if (held) return held
    }
    return undefined
  }

  const forget = (held: Held): void => {
    const ofAddress = byAddress.get(held.address)
    if (!ofAddress?.delete(held.socket)) return
    open--
    if (ofAddress.size === 0) byAddress.delete(held.address)
  }

  server.on(opened, (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined) {
      socket.destroy()
      return
    }
    const addressFull = (byAddress.get(address)?.size ?? 0) >= limits.maxConnectionsPerAddress
    if (addressFull || open >= limits.maxConnections) {
      const victim = addressFull ? longestWaiting(address) : victimOverall()
      if (victim === undefined) {
        // Every connection is serving a request: none can make room.
        socket.destroy()
        return
      }
      forget(victim)
      victim.socket.destroy()
    }
    const held: Held = { socket, address, serving: new Set(), served: false }
    Object.assign(socket, { [HELD]: held })
    const own = byAddress.get(address) ?? new Map<Socket, Held>()
    byAddress.set(address, own)
    own.set(socket, held)
    open++
    socket.once('close', () => forget(held))
  })

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const held = (req.socket as Tagged)[HELD]
    const own = held && byAddress.get(held.address)
    if (own === undefined || held === undefined) {
      requests.serve(req, res)
      return
    }
    const unreserved = requests.unreserved(req)
    if (unreserved && unreservedFull(held.address)) {
      // Refused before anything is read or done: the client may try again in a moment.
      sendError(res, new HttpError(ERRORS.serverBusy, undefined, { ...RETRY_AFTER, Connection: 'close' }))
      return
    }
    held.serving.add(res)
    held.served = true
    if (unreserved) countUnreserved(held.address, 1)
    res.once('close', () => {
      if (!held.serving.delete(res)) return
      if (unreserved) countUnreserved(held.address, -1)
      // Waiting again from now on: to the end of the order.
      if (held.serving.size === 0 && own.delete(held.socket)) own.set(held.socket, held)
    })
    requests.serve(req, res)
  })
}
