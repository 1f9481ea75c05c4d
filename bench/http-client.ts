// The suite benchmark's HTTP client, the same for every target: the control client's own
// transport (node:http) over one kept-alive connection per worker, what a test worker holds.
// fetch costs the client about as much again as the server's work per exchange (bench/suite.ts
// shows it beside), and on two shared cores a client that heavy measures itself as much as the server.
import { Agent } from 'node:http'
import { httpTransport, type Answer } from '../modules/node/src/transport.js'

export type { Answer }

export class HttpClient {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 })
  /** Bounded: a call that hangs fails the run instead of holding it. */
  readonly #send = httpTransport(this.#agent, 10_000)

  send(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
    return this.#send(method, url, headers, body)
  }

  close(): void {
    this.#agent.destroy()
  }
}
