// The suite benchmark's HTTP client, the same for every target: node:http over one kept-alive
// connection per worker (what a test worker holds), each answer read to its end. fetch costs the
// client about as much again as the server's work per exchange (bench/suite.ts shows it beside),
// and on two shared cores a client that heavy measures itself as much as the server.
import { Agent, request } from 'node:http'

export interface Answer {
  readonly status: number
  readonly text: string
}

export class HttpClient {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 })

  send(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const sent = request(
        url,
        {
          method,
          agent: this.#agent,
          headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          timeout: 10_000,
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (text += chunk))
          res.once('end', () => resolve({ status: res.statusCode ?? 0, text }))
          res.once('error', reject)
        },
      )
      sent.once('error', reject)
      sent.once('timeout', () => sent.destroy(new Error(`${method} ${url}: no answer within 10 s`)))
      sent.end(body)
    })
  }

  close(): void {
    this.#agent.destroy()
  }
}
