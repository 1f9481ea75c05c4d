// The HTTP server a sandbox listens with: its limits on what one client may hold, the Error body
// for malformed HTTP, and a stop that lets requests in flight finish. With TLS, one port serves
// HTTP/2 to clients that offer it (ALPN) and HTTP/1.1 to the rest, through the same listener.
import {
  STATUS_CODES,
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { Http2SecureServer, Http2ServerRequest, Http2Session } from 'node:http2'
import type { Socket } from 'node:net'
import type { TLSSocket, TlsOptions } from 'node:tls'
import { limitConnections } from './connections.js'
import { ERRORS, HttpError, errorJson, sendError } from './errors.js'

export type SandboxServer = Server | Http2SecureServer

/** How long a stop waits for requests in flight before it cuts their connections. */
const STOP_GRACE_MS = 1500

/** NGHTTP2_CANCEL (RFC 9113 §7): the code a stream cut by the server is reset with. */
const CANCEL = 0x8

/** What one client may hold: bounds that stop slow or stuck clients, and a flood of connections. */
export interface ServerLimits {
  /** The request line and headers must arrive within this time, else 408 and the connection is cut. */
  readonly headersTimeoutMs: number
  /** The whole request, body included, must arrive within this time, else 408. */
  readonly requestTimeoutMs: number
  /**
   * An idle keep-alive connection is closed after this time: longer than common client pools keep
   * one (up to Java's 20 min), so the client closes it, never a POST it sends at that moment.
   */
  readonly keepAliveTimeoutMs: number
  /** A connection with no traffic at all (e.g. opened and never used) is closed after this time. */
  readonly idleSocketTimeoutMs: number
  /** How often the header and request timeouts are checked: their resolution. */
  readonly timeoutCheckIntervalMs: number
  /** The request line plus headers may not exceed this many bytes, else 431. */
  readonly maxHeaderBytes: number
  /** Requests one HTTP/2 session may have open at once: a client queues the rest. */
  readonly maxStreamsPerSession: number
  /** Connections open at once; past it, the one idle longest makes room (connections.ts). */
  readonly maxConnections: number
  /** Connections one client address may hold; the rest stay open to other addresses. */
  readonly maxConnectionsPerAddress: number
  /** Of each cap, connections kept for health checks and the control API: past the rest, API requests get 503. */
  readonly reservedConnections: number
}

export const SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 30 * 60_000,
  idleSocketTimeoutMs: 60_000,
  timeoutCheckIntervalMs: 1_000,
  maxHeaderBytes: 16 * 1024,
  // The least RFC 9113 §6.5.2 recommends, and what Node's client assumes until told.
  maxStreamsPerSession: 100,
  maxConnections: 1_024,
  maxConnectionsPerAddress: 960,
  reservedConnections: 64,
}

/** Of each TLS server, the HTTP/2 sessions a stop asks to finish and the connections it may cut. */
const opened = new WeakMap<Http2SecureServer, { sessions: Set<Http2Session>; sockets: Set<Socket> }>()

/** Serves `handler` within `limits` (over TLS with `tls`); `unreserved`: the requests kept off reserved connections. */
export async function listen(
  port: number,
  host: string,
  limits: ServerLimits,
  handler: RequestListener,
  unreserved: (req: IncomingMessage) => boolean,
  tls?: TlsOptions,
): Promise<SandboxServer> {
  const http1 = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
    maxHeaderSize: limits.maxHeaderBytes,
    // The app answers a missing Host with an Error body, not node:http's empty 400.
    requireHostHeader: false,
  }
  const server = tls === undefined ? createServer(http1) : await secureServer(tls, http1, limits)
  // Not node:http's 1000 fields, past which Host or Authorization would be dropped unseen: the byte bound.
  Object.assign(server, { maxHeadersCount: 0 })
  // Over TLS, a request's socket is the TLS socket, which the handshake makes.
  const serve = tls === undefined ? handler : withHttp1Bounds(handler, limits)
  limitConnections(server as Server, limits, { serve, unreserved }, tls ? 'secureConnection' : 'connection')
  // With no 'timeout' listener, a socket idle this long is destroyed.
  server.setTimeout(limits.idleSocketTimeoutMs)
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return server
}

/** HTTP/2 and HTTP/1.1 on one port; HTTP/1.1 connections keep the plain server's limits. */
async function secureServer(tls: TlsOptions, http1: object, limits: ServerLimits): Promise<Http2SecureServer> {
  // Loaded here only: a plain HTTP start does not pay for node:http2.
  const { createSecureServer } = await import('node:http2')
  const server = createSecureServer({
    allowHTTP1: true,
    ...tls,
    maxSessionMemory: 10,
    // As many fields as the byte bound lets HTTP/1.1 carry (4 bytes each at least), and the pseudo-headers.
    maxHeaderListPairs: limits.maxHeaderBytes / 4 + 4,
    settings: {
      // Past it node:http2 resets the stream unanswered: more than the byte bound allows (HTTP/2
      // counts 32 bytes a field, HTTP/1.1 4), so that bound answers 431 over both.
      maxHeaderListSize: 8 * limits.maxHeaderBytes,
      maxConcurrentStreams: limits.maxStreamsPerSession,
    },
    // Until its handshake ends a connection is not counted by limitConnections: capped below too.
    handshakeTimeout: limits.headersTimeoutMs,
  })
  server.maxConnections = 2 * limits.maxConnections
  // node:http2 hands HTTP/1.1 connections to node:http, which reads these from the server.
  Object.assign(server, http1)
  const open = { sessions: new Set<Http2Session>(), sockets: new Set<Socket>() }
  opened.set(server, open)
  server.on('session', (session: Http2Session) => {
    open.sessions.add(session)
    session.once('close', () => open.sessions.delete(session))
  })
  server.on('secureConnection', (socket: Socket) => {
    open.sockets.add(socket)
    socket.once('close', () => open.sockets.delete(socket))
  })
  server.on('tlsClientError', answerPlainHttp)
  return server
}

/** What OpenSSL reports when the first bytes are plain HTTP (or anything else but TLS) rather than a handshake. */
const NOT_TLS = new Set(['ERR_SSL_HTTP_REQUEST', 'ERR_SSL_HTTPS_PROXY_REQUEST', 'ERR_SSL_WRONG_VERSION_NUMBER'])

/** Plain HTTP to the HTTPS port is answered in plain HTTP, as Go and nginx do, on the TCP socket under the TLS one. */
function answerPlainHttp(error: NodeJS.ErrnoException, socket: TLSSocket): void {
  const tcp = (socket as TLSSocket & { _parent?: Socket })._parent
  if (!NOT_TLS.has(error.code ?? '') || tcp?.writable !== true) return
  tcp.end(rawAnswer(new HttpError(ERRORS.badRequest, 'This port serves HTTPS only: send the request over https://')))
}

/** For a server that also speaks HTTP/2: an HTTP/2 request gets the Host and bounds node:http gives HTTP/1.1. */
function withHttp1Bounds(handler: RequestListener, limits: ServerLimits): RequestListener {
  return (req, res) => {
    if (req.httpVersionMajor === 2) {
      // HTTP/2 names the host in :authority (RFC 9113 §8.3.1): the app reads it as Host.
      req.headers.host ??= req.headers[':authority'] as string | undefined
      // The bound of HTTP/1.1, counted as HTTP/1.1 counts it.
      const headerBytes = req.rawHeaders.reduce((sum, part) => sum + part.length + 2, 0)
      if (headerBytes > limits.maxHeaderBytes) return sendError(res, new HttpError(ERRORS.headersTooLarge))
      boundStream(req as unknown as Http2ServerRequest, res, limits.requestTimeoutMs)
    }
    handler(req, res)
  }
}

/** An HTTP/2 body must arrive within `timeoutMs`, as over HTTP/1.1: else 408, the stream cut and its session closed. */
function boundStream(req: Http2ServerRequest, res: ServerResponse, timeoutMs: number): void {
  if (req.stream.endAfterHeaders) return
  const timer = setTimeout(() => {
    if (!res.headersSent) sendError(res, new HttpError(ERRORS.requestTimeout))
    req.stream.session?.close()
    req.stream.close(CANCEL)
  }, timeoutMs)
  const done = (): void => clearTimeout(timer)
  req.once('end', done)
  req.stream.once('close', done)
}

/** Stops accepting and resolves once requests in flight are answered (or cut after the grace period). */
export async function stop(server: SandboxServer): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  // Idle connections would hold close() open: end them now and as requests finish, cut the rest
  // after the grace period. An HTTP/2 session is asked to finish its streams and go (GOAWAY).
  const tls = 'closeAllConnections' in server ? undefined : opened.get(server)
  for (const session of tls?.sessions ?? []) session.close()
  // node:http2 keeps node:http's sweep of idle HTTP/1.1 connections without declaring it.
  const closeIdle = (): void => (server as Partial<Server>).closeIdleConnections?.call(server)
  closeIdle()
  const sweep = setInterval(closeIdle, 50)
  const cut = setTimeout(() => {
    if ('closeAllConnections' in server) server.closeAllConnections()
    for (const socket of tls?.sockets ?? []) socket.destroy()
  }, STOP_GRACE_MS)
  await closed
  clearInterval(sweep)
  clearTimeout(cut)
}

/** Malformed HTTP never reaches the app: answer it with the Error contract too. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A TLS handshake that failed or timed out has no channel to answer in.
  if (error.code === 'ECONNRESET' || /^ERR_(TLS|SSL)_/.test(error.code ?? '') || !socket.writable) {
    socket.destroy()
    return
  }
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new HttpError(ERRORS.headersTooLarge)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new HttpError(ERRORS.requestTimeout)
        : new HttpError(ERRORS.badRequest, `The request is not valid HTTP (${error.code ?? 'parse error'})`)
  socket.end(rawAnswer(problem))
}

/** An HTTP/1.1 answer that closes the connection, written where node:http has no response to write it with. */
function rawAnswer(problem: HttpError): string {
  const body = errorJson(problem)
  return (
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Error'}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}
