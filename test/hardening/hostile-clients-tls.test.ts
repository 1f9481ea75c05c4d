// Slow and hostile clients over TLS: a handshake is bounded as headers are, and an HTTP/2 body as
// an HTTP/1.1 one is (hostile-clients.test.ts), with the same Error body. Every loop is bounded.
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2'
import { request } from 'node:https'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { openSocket, rawExchange, whenClosed } from '../../scripts/lib/raw-http.js'
import { SERVER_LIMITS } from '../../src/sandbox.js'
import { API_KEY, startTestSandbox, waitFor } from '../support/sandbox.js'

const SHORT = {
  headersTimeoutMs: 1_500,
  requestTimeoutMs: 3_000,
  timeoutCheckIntervalMs: 250,
  idleSocketTimeoutMs: 5_000,
}
const AUTH = `Bearer ${API_KEY}`

function get(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, authorization: AUTH })
    stream.on('response', (headers) => resolve(Number(headers[':status'])))
    stream.on('error', reject)
    stream.resume()
  })
}

interface Answer {
  readonly status: number
  readonly body: string
}

function overHttp1(origin: string, ca: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/v1/pets?limit=1`, { ca, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function overHttp2(session: ClientHttp2Session, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': '/v1/pets?limit=1', ...headers })
    let status = 0
    let body = ''
    stream.setEncoding('utf8')
    stream.on('response', (answered) => (status = Number(answered[':status'])))
    stream.on('data', (chunk: string) => (body += chunk))
    stream.on('end', () => resolve({ status, body }))
    stream.on('error', reject)
  })
}

t.test('headers past the bound get the same 431 over HTTP/2 as over HTTP/1.1', async (t) => {
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const ca = sandbox.tlsCa ?? ''
  const big = { authorization: AUTH, 'x-big': 'a'.repeat(SERVER_LIMITS.maxHeaderBytes) }
  const overOne = await overHttp1(sandbox.origin, ca, big)
  t.equal(overOne.status, 431)
  const session = http2Connect(sandbox.origin, { ca })
  t.teardown(() => session.destroy())
  // A request first: the session's settings are then acknowledged, and node:http2 holds it to them.
  t.equal(await get(session, '/healthz'), 200)
  t.same(
    await overHttp2(session, big).catch((error: Error) => error.message),
    overOne,
    'the same status and Error body',
  )
  t.equal(await get(session, '/v1/pets?limit=1'), 200, 'the session serves the next request')
})

t.test('many small header fields within the byte bound are served alike over HTTP/2 and HTTP/1.1', async (t) => {
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const ca = sandbox.tlsCa ?? ''
  const session = http2Connect(sandbox.origin, { ca })
  t.teardown(() => session.destroy())
  t.equal(await get(session, '/healthz'), 200, 'a request first, as above')
  // Past node:http2's 128 fields, and past node:http's 1000 with Authorization the last of them.
  for (const count of [200, 1100]) {
    const headers = Object.fromEntries(Array.from({ length: count }, (_, i) => [`x${i}`, 'v']))
    const many = { ...headers, authorization: AUTH }
    const overOne = await overHttp1(sandbox.origin, ca, many)
    t.equal(overOne.status, 200, `${count} fields over HTTP/1.1`)
    t.same(await overHttp2(session, many).catch((error: Error) => error.message), overOne, `${count} over HTTP/2`)
  }
})

t.test('an HTTP/2 session asking for many large answers at once gets every one, as HTTP/1.1 does', async (t) => {
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const session = http2Connect(sandbox.origin, { ca: sandbox.tlsCa ?? '' })
  t.teardown(() => session.destroy())
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
  const sandbox = await startTestSandbox(t, { TLS: 'auto' }, SHORT)
  const ca = sandbox.tlsCa ?? ''
  const slow = http2Connect(sandbox.origin, { ca })
  t.teardown(() => slow.destroy())
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

  const other = http2Connect(sandbox.origin, { ca })
  t.teardown(() => other.destroy())
  t.equal(await get(other, '/v1/pets?limit=1'), 200, 'another client is served meanwhile')

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
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const port = Number(new URL(sandbox.origin).port)
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
  const client = http2Connect(sandbox.origin, { ca: sandbox.tlsCa ?? '' })
  t.teardown(() => client.destroy())
  t.equal(await get(client, '/healthz'), 200, 'a client speaking TLS is served')
})

t.test('a connection that never starts its TLS handshake is cut at the headers timeout', async (t) => {
  const sandbox = await startTestSandbox(t, { TLS: 'auto' }, SHORT)
  const silent = await openSocket(Number(new URL(sandbox.origin).port))
  t.teardown(() => silent.destroy())
  const received = await whenClosed(silent)
  t.equal(received.length, 0, 'closed without an answer: there is no TLS to answer in')
  const client = http2Connect(sandbox.origin, { ca: sandbox.tlsCa ?? '' })
  t.teardown(() => client.destroy())
  t.equal(await get(client, '/healthz'), 200, 'a real client is served')
})

t.test('connections in their handshake are capped too: past twice the cap, new ones are refused', async (t) => {
  const limits = { maxConnections: 4, maxConnectionsPerAddress: 4, reservedConnections: 1, headersTimeoutMs: 60_000 }
  const sandbox = await startTestSandbox(t, { TLS: 'auto' }, limits)
  const port = Number(new URL(sandbox.origin).port)
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
  const client = http2Connect(sandbox.origin, { ca: sandbox.tlsCa ?? '' })
  t.teardown(() => client.destroy())
  await waitFor(async () => (await get(client, '/healthz').catch(() => 0)) === 200, {
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
function rawSession(origin: string, ca: string, onFrame: (type: number, stream: number) => void): Promise<TLSSocket> {
  const { port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: Number(port),
      ca,
      servername: 'localhost',
      ALPNProtocols: ['h2'],
    })
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
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const ca = sandbox.tlsCa ?? ''
  const asked = SERVER_LIMITS.maxStreamsPerSession + 50
  // A client that never reads (a flow-control window of 0) and opens streams past the bound.
  let answered = 0
  let refused = 0
  const greedy = await rawSession(sandbox.origin, ca, (type) => {
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

  const honest = http2Connect(sandbox.origin, { ca })
  t.teardown(() => honest.destroy())
  const statuses = await Promise.all(Array.from({ length: asked }, () => get(honest, '/healthz')))
  t.same(statuses, Array(asked).fill(200), 'a client that keeps to the bound gets every answer')
})
