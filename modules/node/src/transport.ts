// How the control client reaches the sandbox by default: node:http over kept-alive connections (a
// test makes a few control calls each, and the global fetch costs the client about as much again
// as the sandbox's own work per call), in the shape of a fetch.
import { Agent, request } from 'node:http'
import { Agent as SecureAgent, request as secureRequest } from 'node:https'

export interface Answer {
  readonly status: number
  readonly text: string
}

export type Transport = (
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
) => Promise<Answer>

export interface HttpTransportOptions {
  /** Holds the connections, of the origin's protocol (an https.Agent for https); kept alive between calls by default. */
  readonly agent?: Agent
  /** The CA (PEM) an https origin's certificate must chain to, instead of the system's. */
  readonly ca?: string
  /** A call whose connection stays silent this long fails. */
  readonly timeoutMs?: number
}

/**
 * A transport over node:http(s), its connections kept alive between calls (idle ones never keep
 * the process alive).
 */
export function httpTransport({ agent, ca, timeoutMs }: HttpTransportOptions = {}): Transport {
  const plainAgent = agent ?? new Agent({ keepAlive: true })
  const secureAgent = agent ?? new SecureAgent({ keepAlive: true })
  return (method, url, headers, body) =>
    new Promise((resolve, reject) => {
      const secure = url.startsWith('https:')
      const sent = (secure ? secureRequest : request)(
        url,
        {
          method,
          ...(secure ? { agent: secureAgent, ca } : { agent: plainAgent }),
          headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
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
      if (timeoutMs !== undefined)
        sent.setTimeout(timeoutMs, () => sent.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)))
      sent.end(body)
    })
}

/** A fetch over httpTransport; a status that carries no body answers none. */
export function httpFetch(options: HttpTransportOptions = {}): (request: Request) => Promise<Response> {
  const send = httpTransport(options)
  return async (request) => {
    const body = request.body === null ? undefined : await request.text()
    const { status, text } = await send(request.method, request.url, Object.fromEntries(request.headers), body)
    return new Response([204, 205, 304].includes(status) ? null : text, { status })
  }
}
