// Prism forwards over HTTP/1.1 only, and would trust a CA only through NODE_EXTRA_CA_CERTS, on top
// of the public roots. Over TLS it forwards to this relay on loopback instead, which carries each
// request to the deployment over HTTPS/1.1 or HTTP/2, trusting only the CA it is given, and each
// answer back as it came: Prism judges the same statuses, headers and bodies over every protocol.
import { createServer, type IncomingMessage } from 'node:http'
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2'
import { Agent, request as httpsRequest } from 'node:https'
import { isIP, type AddressInfo } from 'node:net'
import { pipeline, type Readable } from 'node:stream'
import { connect as tlsConnect } from 'node:tls'

/** HTTP/1.1 over TLS, or HTTP/2 (over TLS, chosen through ALPN). */
export type TlsProtocol = 'https' | 'h2'

export interface Relay {
  /** The deployment's base URL at the relay, e.g. http://127.0.0.1:43210/v1 */
  readonly baseUrl: string
  /** Stops the relay and closes its connections to the deployment. */
  close(): Promise<void>
}

type Headers = Record<string, string | string[] | undefined>

interface Upstream {
  /** Sends a request on to the deployment; resolves with its answer once the headers are in. */
  forward(req: IncomingMessage): Promise<{ status: number; headers: Headers; body: Readable }>
  close(): void
}

/** A deployment that accepts the connection but never finishes the handshake stops the run, bounded. */
const HANDSHAKE_TIMEOUT_MS = 15_000

/** Hop-by-hop headers (RFC 9110 §7.6.1), which a relay does not pass on; HTTP/2 forbids them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'transfer-encoding', 'upgrade'])

/**
 * Starts a relay to `baseUrl` (https://) over `protocol`, trusting `ca` alone (Node's own roots
 * without it). The TLS handshake is made first, so a certificate the client does not trust, or a
 * deployment that does not speak HTTP/2, stops the start with the reason.
 */
export async function startRelay(baseUrl: string, protocol: TlsProtocol, ca: string | undefined): Promise<Relay> {
  const target = new URL(baseUrl)
  await handshake(target, protocol, ca)
  const upstream = protocol === 'h2' ? overHttp2(target.origin, ca) : overHttps(target.origin, ca)
  const server = createServer((req, res) => {
    upstream.forward(req).then(
      ({ status, headers, body }) => {
        res.writeHead(status, endToEnd(headers))
        pipeline(body, res, () => {})
      },
      (error: Error) => {
        // Said in the answer, where the case that sent it prints it.
        res.writeHead(502, { 'content-type': 'text/plain' })
        res.end(`the relay could not reach ${target.origin}: ${error.message}`)
      },
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, '')}`,
    close: async () => {
      upstream.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

function handshake(target: URL, protocol: TlsProtocol, ca: string | undefined): Promise<void> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  // For h2 both are offered, so that a server without HTTP/2 completes the handshake and says so.
  const offered = protocol === 'h2' ? ['h2', 'http/1.1'] : ['http/1.1']
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      {
        host,
        port: Number(target.port || 443),
        ca,
        servername: isIP(host) ? undefined : host,
        ALPNProtocols: offered,
      },
      () => {
        socket.setTimeout(0)
        socket.end()
        if (protocol === 'h2' && socket.alpnProtocol !== 'h2')
          reject(
            new Error(
              `${target.origin} does not speak HTTP/2: it chose ${socket.alpnProtocol || 'no protocol'} in the TLS handshake (ALPN), not h2`,
            ),
          )
        else resolve()
      },
    )
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () =>
      socket.destroy(new Error(`no TLS handshake within ${HANDSHAKE_TIMEOUT_MS} ms`)),
    )
    socket.once('error', (error) =>
      reject(new Error(`the TLS handshake with ${target.origin} failed: ${error.message}`)),
    )
  })
}

function overHttps(origin: string, ca: string | undefined): Upstream {
  const agent = new Agent({ ca, keepAlive: true })
  return {
    forward: (req) =>
      new Promise((resolve, reject) => {
        const options = { method: req.method, headers: endToEnd(req.headers, 'host'), agent }
        const sent = httpsRequest(new URL(req.url ?? '/', origin), options, (res) =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res }),
        )
        sent.once('error', reject)
        req.pipe(sent)
      }),
    close: () => agent.destroy(),
  }
}

function overHttp2(origin: string, ca: string | undefined): Upstream {
  let session: ClientHttp2Session | undefined
  const open = (): ClientHttp2Session => {
    if (session === undefined || session.closed || session.destroyed) {
      session = http2Connect(origin, { ca })
      // A failed session fails its streams, each of which reports the error to its request.
      session.on('error', () => {})
    }
    return session
  }
  return {
    forward: (req) =>
      new Promise((resolve, reject) => {
        const stream = open().request({ ':method': req.method, ':path': req.url, ...endToEnd(req.headers, 'host') })
        stream.once('response', (headers) => resolve({ status: Number(headers[':status']), headers, body: stream }))
        stream.once('error', reject)
        req.pipe(stream)
      }),
    close: () => session?.destroy(),
  }
}

/**
 * A message's end-to-end headers: without the hop-by-hop ones (those its Connection header names
 * too), HTTP/2's pseudo-headers and `dropped` (the relay's own Host, which the client sets anew).
 */
function endToEnd(headers: Headers, dropped?: string): Headers {
  const named = String(headers['connection'] ?? '')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => !name.startsWith(':') && !HOP_BY_HOP.has(name) && !named.includes(name) && name !== dropped,
    ),
  )
}
