// Slow and hostile clients on loopback: they are cut off by the server's limits, and while they
// hold their connections every other client is still served. Every loop is bounded.
import { setTimeout as sleep } from 'node:timers/promises'
import type { IncomingMessage } from 'node:http'
import type { Server } from 'node:net'
import type { Socket } from 'node:net'
import t, { type Test } from 'tap'
import { SERVER_LIMITS } from '../../src/sandbox.js'
import { ADMIN_TOKEN } from '../support/control.js'
import { AUTH, startTestSandbox, waitFor } from '../support/sandbox.js'
import { openSocket, parseResponse, rawExchange, whenClosed } from '../../scripts/lib/raw-http.js'

/** Short limits, so the cut-offs happen within a test; the check interval sets their resolution. */
const SHORT = {
  headersTimeoutMs: 1_500,
  requestTimeoutMs: 3_000,
  timeoutCheckIntervalMs: 250,
  idleSocketTimeoutMs: 2_000,
}

function portOf(origin: string): number {
  return Number(new URL(origin).port)
}

/** Normal clients keep being served: `count` requests one after another; their statuses. */
async function servedMeanwhile(baseUrl: string, count: number, pauseMs: number): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${baseUrl}/pets?limit=1`, { headers: AUTH, signal: AbortSignal.timeout(5_000) })
    await res.arrayBuffer()
    statuses.push(res.status)
    await sleep(pauseMs)
  }
  return statuses
}

/**
 * Opens a connection, sends `head` at once and then `trickled` one byte a second (bounded by its
 * length: the server must cut it well before); meanwhile 10 other requests must be served.
 * Resolves with what the slow connection received before it was closed.
 */
async function trickle(t: Test, origin: string, head: string, trickled: string): Promise<Buffer> {
  const slow = await openSocket(portOf(origin))
  const received = whenClosed(slow)
  slow.write(head)
  const sending = (async () => {
    for (let i = 0; i < trickled.length && !slow.destroyed; i++) {
      slow.write(trickled.slice(i, i + 1))
      await sleep(1_000)
    }
  })()
  const baseUrl = `${origin}/v1`
  t.same(await servedMeanwhile(baseUrl, 10, 100), Array(10).fill(200), 'others are served while it trickles')
  const raw = await received
  t.ok(slow.destroyed, 'the slow connection is closed')
  await sending
  return raw
}

t.test(
  'a client sending its headers one byte a second gets 408 and is cut, an idle one is closed; others are served',
  async (t) => {
    const { origin } = await startTestSandbox(t, {}, SHORT)
    // Meanwhile, a connection that never sends anything is closed after the idle timeout.
    const idle = whenClosed(await openSocket(portOf(origin)))
    const headers = `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key-1\r\nX-Slow: ${'a'.repeat(40)}`
    const answer = parseResponse(await trickle(t, origin, '', headers), false, true)
    t.equal(answer?.status, 408)
    t.match(answer?.headers['content-type'], /^application\/json/)
    t.same(JSON.parse(answer?.body.toString() ?? '{}'), {
      code: 'request_timeout',
      message: 'The request did not arrive in time; the connection is closed',
      status: 408,
    })
    await t.resolves(idle, 'the idle connection is closed')
  },
)

t.test('a body trickled one byte a second is cut at the request timeout', async (t) => {
  const { origin, store } = await startTestSandbox(t, {}, SHORT)
  const before = store.size
  const body = JSON.stringify({ name: 'Slowpoke', categoryId: 1 })
  const head =
    'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key-1\r\n' +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
  const raw = await trickle(t, origin, head, body)
  if (raw.length > 0) t.equal(parseResponse(raw, false, true)?.status, 408, 'if anything is answered, it is a 408')
  t.equal(store.size, before, 'nothing half-received was stored')
})

/** Connections the server holds. */
function connectionsOf(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  )
}

t.test('at the cap, the connection waiting longest makes room: new clients are served', async (t) => {
  const { origin, baseUrl, server } = await startTestSandbox(t, {}, { maxConnections: 10, reservedConnections: 2 })
  const port = portOf(origin)
  const held: Socket[] = []
  t.teardown(() => held.forEach((s) => s.destroy()))
  // The oldest: a keep-alive connection that carried a request and now idles.
  const pooled = await openSocket(port)
  held.push(pooled)
  const answered = new Promise((resolve) => pooled.once('data', resolve))
  pooled.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  await answered
  for (let i = 1; i < 10; i++) {
    held.push(await openSocket(port))
    // Connected on this side is not yet accepted on the server's: each in turn, oldest first.
    await waitFor(async () => (await connectionsOf(server)) === i + 1, { what: `the server to hold ${i + 1}` })
  }
  const oldestSilent = whenClosed(held[1] as Socket)
  const answer = await rawExchange(port, { method: 'GET', target: '/healthz' }, 5_000)
  t.equal(answer?.status, 200, 'the connection over the cap is served')
  t.equal((await oldestSilent).length, 0, 'the oldest silent connection was closed, without an answer')
  t.same(
    held.map((s) => s.destroyed),
    [false, true, ...Array(8).fill(false)],
    'the idle keep-alive connection, older still, and the other silent ones are kept',
  )
  t.same(await servedMeanwhile(baseUrl, 3, 0), [200, 200, 200])
})

t.test('at the cap, a request in progress is never cut; the API keeps out of the reserved share', async (t) => {
  const limits = { maxConnections: 10, reservedConnections: 2 }
  const { origin, baseUrl, server } = await startTestSandbox(t, { ADMIN_TOKEN }, limits)
  const port = portOf(origin)
  // Eight API requests the server answers only after a delay: the API's whole share.
  const slow = Array.from({ length: 8 }, () =>
    rawExchange(port, {
      method: 'GET',
      target: '/v1/pets?limit=1',
      headers: [
        ['Authorization', AUTH.authorization],
        ['Prefer', 'delay=3000'],
      ],
    }),
  )
  await waitFor(async () => (await connectionsOf(server)) === 8, { what: 'the server to hold the 8 connections' })
  const busy = await rawExchange(port, {
    method: 'GET',
    target: '/v1/pets?limit=1',
    headers: [['Authorization', AUTH.authorization]],
  })
  t.equal(busy?.status, 503, 'an API request past its share is refused at once')
  t.match(JSON.parse(busy?.body.toString() ?? '{}'), { code: 'server_busy', status: 503 })
  t.equal(busy?.headers['retry-after'], '1')
  t.equal((await rawExchange(port, { method: 'GET', target: '/healthz' }, 5_000))?.status, 200, 'health is served')

  // Two control requests whose bodies never come take the reserved share: all ten are serving.
  const held: Socket[] = []
  t.teardown(() => held.forEach((s) => s.destroy()))
  let controlRequests = 0
  server.on('request', (req: IncomingMessage) => void (req.url === '/__admin/faults' && controlRequests++))
  for (let i = 0; i < 2; i++) {
    const control = await openSocket(port)
    control.write(
      `POST /__admin/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 64\r\n\r\n',
    )
    held.push(control)
  }
  await waitFor(() => controlRequests === 2, { what: 'the server to serve both control requests' })
  const refused = await rawExchange(port, { method: 'GET', target: '/healthz' }, 5_000)
  t.equal(refused, undefined, 'the connection over the cap is closed without an answer')
  t.same(
    (await Promise.all(slow)).map((answer) => answer?.status),
    Array(8).fill(200),
    'every request in progress is answered',
  )
  t.same(await servedMeanwhile(baseUrl, 3, 0), [200, 200, 200])
})

t.test('an address at its share makes room from its own connections; other addresses keep theirs', async (t) => {
  const { origin, server } = await startTestSandbox(
    t,
    {},
    { maxConnections: 10, maxConnectionsPerAddress: 6, reservedConnections: 2 },
  )
  const port = portOf(origin)
  const greedy = '127.0.0.1'
  const other = '127.0.0.2'
  const held: Array<{ from: string; socket: Socket }> = []
  t.teardown(() => held.forEach(({ socket }) => socket.destroy()))
  const hold = async (from: string): Promise<void> => {
    held.push({ from, socket: await openSocket(port, from) })
    const open = held.filter(({ socket }) => !socket.destroyed).length
    await waitFor(async () => (await connectionsOf(server)) === Math.min(open, 10), { what: 'the server to hold it' })
  }
  for (let i = 0; i < 6; i++) await hold(greedy)
  for (let i = 0; i < 4; i++) await hold(other)
  // A 7th of the greedy address: its own oldest goes, not one of the other address.
  const firstGreedy = whenClosed(held[0]?.socket as Socket)
  await hold(greedy)
  await firstGreedy
  t.same(
    held.filter(({ from }) => from === other).map(({ socket }) => socket.destroyed),
    [false, false, false, false],
    'the other address keeps its connections',
  )
  // At the overall cap, a new address's connection takes the place of the address holding most.
  const secondGreedy = whenClosed(held[1]?.socket as Socket)
  const answer = await rawExchange(port, { method: 'GET', target: '/healthz' }, 5_000)
  t.equal(answer?.status, 200)
  await secondGreedy
  t.ok(held[1]?.socket.destroyed, 'the greedy address gave up its oldest waiting connection')
})

t.test(
  `headers over ${SERVER_LIMITS.maxHeaderBytes} bytes get 431 Error; just under the cap they are served`,
  async (t) => {
    const { origin } = await startTestSandbox(t)
    const withHeader = (bytes: number) =>
      rawExchange(portOf(origin), {
        method: 'GET',
        target: '/v1/pets?limit=1',
        headers: [
          ['Authorization', AUTH.authorization],
          ['X-Big', 'a'.repeat(bytes)],
        ],
      })
    const over = await withHeader(SERVER_LIMITS.maxHeaderBytes)
    t.equal(over?.status, 431)
    t.match(over?.headers['content-type'], /^application\/json/)
    t.same(JSON.parse(over?.body.toString() ?? '{}'), {
      code: 'headers_too_large',
      message: 'The request headers are too large',
      status: 431,
    })
    t.equal((await withHeader(SERVER_LIMITS.maxHeaderBytes - 200))?.status, 200)
  },
)
