// Who may hold the server's connections. A cap alone lets one client hold every one of them by
// opening connections and never finishing a request (slowloris): past the cap, the server would
// then refuse everyone else, health checks included. Here a new connection is never refused for
// a waiting one: past the cap (overall, or for the client's address), the connection that has
// waited longest without a request in progress is closed to make room. A request in progress is
// never cut; a client that sends its request at once is never the one that has waited longest.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

export interface ConnectionLimits {
  /** Connections open at once; past it, the one waiting longest makes room. */
  readonly maxConnections: number
  /** Connections one address may hold; the rest of the cap stays open to other addresses. */
  readonly maxConnectionsPerAddress: number
}

interface Held {
  readonly socket: Socket
  readonly address: string
  /** The answer in progress, if a request is being served. */
  serving: ServerResponse | undefined
  /** Whether it has carried a request: an idle keep-alive connection rather than a silent or slow one. */
  served: boolean
}

/**
 * Enforces `limits` on `server`'s connections. Call before the server listens; it replaces
 * node:http's maxConnections, which refuses every new connection at the cap.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  // By address, each in the order its connections last had nothing in progress (oldest first).
  const byAddress = new Map<string, Map<Socket, Held>>()
  let open = 0

  const waiting = (held: Held): boolean => held.serving === undefined || held.serving.writableEnded

  /**
   * The connection of `address` that has waited longest with nothing in progress: one that never
   * carried a request first; an idle keep-alive one only when there is none, as closing it races
   * its client's next request.
   */
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

  server.on('connection', (socket: Socket) => {
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
    const held: Held = { socket, address, serving: undefined, served: false }
    const own = byAddress.get(address) ?? new Map<Socket, Held>()
    byAddress.set(address, own)
    own.set(socket, held)
    open++
    socket.once('close', () => forget(held))
  })

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const own = byAddress.get(req.socket.remoteAddress ?? '')
    const held = own?.get(req.socket)
    if (own === undefined || held === undefined) return
    held.serving = res
    held.served = true
    res.once('close', () => {
      if (held.serving !== res) return
      held.serving = undefined
      // Waiting again from now on: to the end of the order.
      if (own.delete(held.socket)) own.set(held.socket, held)
    })
  })
}
