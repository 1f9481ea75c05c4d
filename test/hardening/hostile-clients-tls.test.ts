// Slow and hostile clients over TLS: a handshake is bounded as headers are, and an HTTP/2 body as
// an HTTP/1.1 one is (hostile-clients.test.ts), with the same Error body; HTTP/2's streams count
// as HTTP/1.1's requests. Every loop is bounded.
import type { ClientHttp2Session } from 'node:http2'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { openSocket, rawExchange, whenClosed } from '../../scripts/lib/raw-http.js'
import { SERVER_LIMITS } from '../../src/sandbox.js'
import { API_KEY, waitFor } from '../support/sandbox.js'
import { http2Session, overHttp1, overHttp2, startTlsSandbox, type Answer } from '../support/tls.js'

const SHORT = {
  headersTimeoutMs: 1_500,
  requestTimeoutMs: 3_000,
  timeoutCheckIntervalMs: 250,
  idleSocketTimeoutMs: 5_000,
}
const AUTH = `Bearer ${API_KEY}`

/** The status of a GET on `session`. */
const statusOf = async (session: ClientHttp2Session, path: string): Promise<number> =>
  (await overHttp2(session, { path, headers: { authorization: AUTH } })).status

t.test('header fields are bounded by their bytes alone, as HTTP/1.1 counts them, over either protocol', async (t) => {
  const { origin, ca } = await startTlsSandbox(t)
  const session = http2Session(t, origin, ca)
  // A request first: the session's settings are then acknowledged, and node:http2 holds it to them.
  t.equal(await statusOf(session, '/healthz'), 200)
  const fields = (count: number): Record<string, string> =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`x${i}`, 'v']))
  const statusAndBody = (answer: Answer | string): unknown =>
    typeof answer === 'string' ? answer : { status: answer.status, body: answer.body }
  // Past the byte bound in one field; past node:http2's 128 fields, and node:http's 1000 with
  // Authorization the last of them, within it.
  const cases: Array<[string, Record<string, string>, number]> = [
    ['16 KiB in one field', { 'x-big': 'a'.repeat(SERVER_LIMITS.maxHeaderBytes) }, 431],
    ['200 fields', fields(200), 200],
    ['1100 fields', fields(1100), 200],
  ]
  for (const [label, headers, status] of cases) {
    const call = { path: '/v1/pets?limit=1', headers: { ...headers, authorization: AUTH } }
    const overOne = await overHttp1(origin, ca, call)
    t.equal(overOne.status, status, `${label} over HTTP/1.1`)
    const overTwo = await overHttp2(session, call).catch((error: Error) => error.message)
    t.same(statusAndBody(overTwo), statusAndBody(overOne), `${label}: the same status and body over HTTP/2`)
  }
  t.equal(await statusOf(session, '/v1/pets?limit=1'), 200, 'the session serves the next request')
})

t.test('HTTP/2 requests keep out of the reserved share, as HTTP/1.1 ones do', async (t) => {
  // Two API requests in progress at once are the API's whole share here.
  const { origin, ca } = await startTlsSandbox(t, {}, { maxConnections: 10, reservedConnections: 8 })
  const warnings: string[] = []
  const warned = (warning: Error): number => warnings.push(warning.message)
  process.on('warning', warned)
  t.teardown(() => process.off('warning', warned))
  const slowly = { path: '/v1/pets?limit=1', headers: { authorization: AUTH, prefer: 'delay=3000' } }
  const slow = [1, 2].map(() => overHttp2(http2Session(t, origin, ca), slowly))
  const probe = http2Session(t, origin, ca)
  let busy: Answer | undefined
  await waitFor(
    async () => {
      busy = await overHttp2(probe, { path: '/v1/pets?limit=1', headers: { authorization: AUTH } })
      return busy.status === 503
    },
    { what: 'an API request past the share to be refused', timeoutMs: 10_000 },
  )
  t.match(JSON.parse(busy?.body ?? '{}'), { code: 'server_busy', status: 503 })
  t.same(warnings, [], "no warning: HTTP/1.1's Connection: close is not sent over HTTP/2")
  t.equal(await statusOf(probe, '/healthz'), 200, 'health is served')
  t.same(
    (await Promise.all(slow)).map((answer) => answer.status),
    [200, 200],
    'the requests in progress are answered',
  )
})

t.test('an HTTP/2 session asking for many large answers at once gets every one, as HTTP/1.1 does', async (t) => {
  const sandbox = await startTlsSandbox(t)
  const session = http2Session(t, sandbox.origin, sandbox.ca)
  // The explorer's script bundle (~1.7 MB): thirty of them queued whole would pass the memory Node
  // grants a session (10 MB), and it would reset the streams past it.
  const bundle = (): Promise<string> =>
    new Promise((resolve) => {
      const stream = session.request({ ':path': '/docs/swagger-ui-bundle.js' })
      let status = 0
      let bytes = 0
      stream.on('response', (headers) => (status = Number(headers[':status'])))
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length))
      stream.on('error', () => undefined)
      stream.on('close', () => resolve(`${status}, ${bytes > 1_000_000 ? 'whole' : `${bytes} bytes`}`))
    })
  t.equal(await bundle(), '200, whole', 'the first reads it from disk: the rest are answered at once')
  t.same(await Promise.all(Array.from({ length: 30 }, bundle)), Array(30).fill('200, whole'))
})

t.test('an HTTP/2 body trickled past the request timeout gets 408 and its session goes', async (t) => {
  const sandbox = await startTlsSandbox(t, {}, SHORT)
  const slow = http2Session(t, sandbox.origin, sandbox.ca)
  const goaway = new Promise<boolean>((resolve) => slow.once('goaway', () => resolve(true)))
  const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 })
  const stream = slow.request({
    ':method': 'POST',
    ':path': '/v1/pets',
    authorization: AUTH,
    'content-type': 'application/json',
    'content-length': String(body.length),
  })
  stream.on('error', () => undefined)
  let status = 0
  let answer = ''
  stream.on('response', (headers) => (status = Number(headers[':status'])))
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => (answer += chunk))
  const closed = new Promise<void>((resolve) => stream.once('close', resolve))
  // One byte every 300 ms: the whole body would take longer than the request timeout.
  const trickling = (async () => {
    for (let i = 0; i < body.length && !stream.closed; i++) {
      stream.write(body[i])
      await sleep(300)
    }
  })()

  const other = http2Session(t, sandbox.origin, sandbox.ca)
  t.equal(await statusOf(other, '/v1/pets?limit=1'), 200, 'another client is served meanwhile')

  await closed
  t.equal(status, 408)
  t.same(JSON.parse(answer), {
    code: 'request_timeout',
    message: 'The request did not arrive in time; the connection is closed',
    status: 408,
  })
  t.ok(await goaway, 'the session is told to go, as HTTP/1.1 closes the connection')
  await trickling
  t.equal(sandbox.store.size, 60, 'nothing was stored')
})

t.test('plain HTTP sent to the HTTPS port is answered 400 with the Error body, in plain HTTP', async (t) => {
  const { origin, ca, port } = await startTlsSandbox(t)
  // GET is what OpenSSL recognises as HTTP; DELETE is any other bytes that are not TLS.
  for (const method of ['GET', 'DELETE']) {
    const answer = await rawExchange(port, { method, target: '/v1/pets/1', headers: [['Authorization', AUTH]] })
    t.equal(answer?.status, 400, method)
    t.match(answer?.headers['content-type'], /^application\/json/)
    t.same(JSON.parse(answer?.body.toString() ?? '{}'), {
      code: 'bad_request',
      message: 'This port serves HTTPS only: send the request over https://',
      status: 400,
    })
  }
  t.equal(await statusOf(http2Session(t, origin, ca), '/healthz'), 200, 'a client speaking TLS is served')
})

t.test('a connection that never starts its TLS handshake is cut at the headers timeout', async (t) => {
  const { origin, ca, port } = await startTlsSandbox(t, {}, SHORT)
  const silent = await openSocket(port)
  t.teardown(() => silent.destroy())
  const received = await whenClosed(silent)
  t.equal(received.length, 0, 'closed without an answer: there is no TLS to answer in')
  t.equal(await statusOf(http2Session(t, origin, ca), '/healthz'), 200, 'a real client is served')
})

t.test('connections in their handshake are capped too: past twice the cap, new ones are refused', async (t) => {
  const limits = { maxConnections: 4, maxConnectionsPerAddress: 4, reservedConnections: 1, headersTimeoutMs: 60_000 }
  const sandbox = await startTlsSandbox(t, {}, limits)
  const { port } = sandbox
  const sockets = await Promise.all(Array.from({ length: 12 }, () => openSocket(port)))
  t.teardown(() => sockets.forEach((socket) => socket.destroy()))
  let closed = 0
  for (const socket of sockets) void whenClosed(socket).then(() => closed++)
  await waitFor(() => closed >= 4, { what: 'the connections past twice the cap to be closed', timeoutMs: 10_000 })
  const held = await new Promise<number>((resolve, reject) =>
    sandbox.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  )
  t.equal(held, 8, 'eight are held in their handshake, no more')
  t.equal(closed, 4)
  for (const socket of sockets) socket.destroy()
  await waitFor(() => closed === 12, { what: 'the silent connections to be gone' })
  const client = http2Session(t, sandbox.origin, sandbox.ca)
  await waitFor(async () => (await statusOf(client, '/healthz').catch(() => 0)) === 200, {
    what: 'a real client to be served once they are gone',
    timeoutMs: 10_000,
  })
})

/** An HTTP/2 frame (RFC 9113 §4.1), for a client that ignores what the server asks of it. */
function frame(type: number, flags: number, stream: number, payload = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9)
  header.writeUIntBE(payload.length, 0, 3)
  header.writeUInt8(type, 3)
  header.writeUInt8(flags, 4)
  header.writeUInt32BE(stream, 5)
  return Buffer.concat([header, payload])
}

/** HPACK for GET https://localhost/healthz: static-table entries and literals with indexed names. */
const GET_HEALTHZ = Buffer.concat([
  Buffer.from([0x82, 0x87, 0x04, 8]),
  Buffer.from('/healthz'),
  Buffer.from([0x01, 9]),
  Buffer.from('localhost'),
])

/** Opens an HTTP/2 session by hand and calls `onFrame` with each frame's type and stream. */
function rawSession(port: number, ca: string, onFrame: (type: number, stream: number) => void): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: ['h2'] })
    socket.once('secureConnect', () => resolve(socket))
    socket.once('error', reject)
    let pending = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      while (pending.length >= 9 && pending.length >= 9 + pending.readUIntBE(0, 3)) {
        onFrame(pending.readUInt8(3), pending.readUInt32BE(5) & 0x7fffffff)
        pending = pending.subarray(9 + pending.readUIntBE(0, 3))
      }
    })
  })
}

t.test('a session may hold only so many streams at once; an honest client queues the rest', async (t) => {
  const { origin, ca, port } = await startTlsSandbox(t)
  const asked = SERVER_LIMITS.maxStreamsPerSession + 50
  // A client that never reads (a flow-control window of 0) and opens streams past the bound.
  let answered = 0
  let refused = 0
  const greedy = await rawSession(port, ca, (type) => {
    if (type === 0x1) answered++ // HEADERS
    if (type === 0x3 || type === 0x7) refused++ // RST_STREAM, GOAWAY
  })
  t.teardown(() => greedy.destroy())
  const noWindow = Buffer.from([0x00, 0x04, 0x00, 0x00, 0x00, 0x00]) // SETTINGS_INITIAL_WINDOW_SIZE = 0
  const streams = Array.from({ length: asked }, (_, i) => frame(0x1, 0x5, 1 + 2 * i, GET_HEALTHZ))
  greedy.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(0x4, 0, 0, noWindow), ...streams]))
  await waitFor(() => answered === SERVER_LIMITS.maxStreamsPerSession && refused > 0, {
    what: 'the streams past the bound to be refused',
    timeoutMs: 10_000,
  })
  t.equal(answered, SERVER_LIMITS.maxStreamsPerSession, 'no more streams are served than the bound')

  const honest = http2Session(t, origin, ca)
  const statuses = await Promise.all(Array.from({ length: asked }, () => statusOf(honest, '/healthz')))
  t.same(statuses, Array(asked).fill(200), 'a client that keeps to the bound gets every answer')
})

t.test('a burst of streams opened and reset at once (rapid reset) ends the session; others are served', async (t) => {
  const { origin, ca, port, server } = await startTlsSandbox(t)
  const burst = 2_000
  let requests = 0
  server.on('request', () => requests++)
  let goaway = false
  const rapid = await rawSession(port, ca, (type) => (goaway ||= type === 0x7))
  t.teardown(() => rapid.destroy())
  const cancel = Buffer.from([0x00, 0x00, 0x00, 0x08]) // RST_STREAM with CANCEL
  const streams = Array.from({ length: burst }, (_, i) => [
    frame(0x1, 0x5, 1 + 2 * i, GET_HEALTHZ),
    frame(0x3, 0, 1 + 2 * i, cancel),
  ]).flat()
  rapid.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(0x4, 0, 0), ...streams]))
  await waitFor(() => goaway, { what: 'the session to be told to go (GOAWAY)', timeoutMs: 10_000 })
  t.ok(requests < burst, `the session ended before its burst reached the app (${requests} of ${burst})`)
  t.equal(await statusOf(http2Session(t, origin, ca), '/healthz'), 200, 'another client is served')
})
