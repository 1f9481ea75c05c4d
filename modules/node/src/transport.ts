// How the control client reaches the sandbox: node:http over kept-alive connections by default
// (a test makes a few control calls each, and fetch costs the client about as much again as the
// sandbox's own work per call), or a fetch the caller gives (a proxy, a recorder).
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

/** A transport over the given fetch. */
export function fetchTransport(fetchFunction: typeof fetch): Transport {
  return async (method, url, headers, body) => {
    const res = await fetchFunction(url, { method, headers, ...(body === undefined ? {} : { body }) })
    return { status: res.status, text: await res.text() }
  }
}

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
