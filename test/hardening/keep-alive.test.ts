// Pooled clients: an idle keep-alive connection outlives the client's pool, so a request sent on it
// after a pause is answered (a POST sent just as the server closed it would fail, unretried), and a
// stop still closes idle connections at once.
import { Agent, request } from 'node:http'
import type { Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { SERVER_LIMITS } from '../../src/sandbox.js'
import { AUTH, startTestSandbox } from '../support/sandbox.js'
import { whenClosed } from '../../scripts/lib/raw-http.js'

interface Answer {
  readonly status: number
  readonly body: string
  readonly socket: Socket
  /** Whether the request went out on a connection the agent had pooled. */
  readonly reused: boolean
}

/** One request through `agent`, as a pooled client sends it. */
function send(agent: Agent, url: string, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }
    const req = request(url, { agent, method, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: text, socket: req.socket as Socket, reused: req.reusedSocket }),
      )
    })
    req.on('error', reject)
    req.end(body)
  })
}

t.test('a pooled connection idle past the old 5 s timeout carries a POST', async (t) => {
  // Short header, request and idle-socket timeouts: none of them may cut a connection idle between requests.
  const { baseUrl } = await startTestSandbox(
    t,
    {},
    { headersTimeoutMs: 1_500, requestTimeoutMs: 3_000, idleSocketTimeoutMs: 2_000, timeoutCheckIntervalMs: 250 },
  )
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const first = await send(agent, `${baseUrl}/pets?limit=1`)
  t.equal(first.status, 200)
  // The pause a test suite takes between two calls (a slow step, a container starting): longer
  // than the server used to keep the connection (the agent drops a connection a second before the
  // server's advertised Keep-Alive timeout).
  await sleep(6_500)
  t.notOk(first.socket.destroyed, 'the idle connection is still open')
  const created = await send(agent, `${baseUrl}/pets`, 'POST', JSON.stringify({ name: 'After a pause', categoryId: 1 }))
  t.equal(created.status, 201, created.body)
  t.ok(created.reused, 'the POST went out on the pooled connection')
  t.equal(created.socket, first.socket, 'the same socket carried both requests')
})

t.test('the server advertises how long it keeps an idle connection', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const res = await fetch(`${baseUrl}/pets?limit=1`, { headers: AUTH })
  await res.arrayBuffer()
  t.equal(res.headers.get('keep-alive'), `timeout=${SERVER_LIMITS.keepAliveTimeoutMs / 1000}`)
})

t.test('a stop with idle pooled connections closes them at once and finishes', async (t) => {
  const sandbox = await startTestSandbox(t)
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  t.teardown(() => agent.destroy())
  const answers = await Promise.all(Array.from({ length: 4 }, () => send(agent, `${sandbox.baseUrl}/pets?limit=1`)))
  const sockets = new Set(answers.map((a) => a.socket))
  t.ok(sockets.size > 1, `idle pooled connections: ${sockets.size}`)
  const closedByServer = Promise.all([...sockets].map(whenClosed))
  // Generous: a stop that waited for its idle connections would wait for the keep-alive timeout.
  const stopped = await Promise.race([
    sandbox.close().then(() => 'stopped'),
    sleep(60_000, undefined, { ref: false }).then(() => 'still stopping'),
  ])
  t.equal(stopped, 'stopped')
  await closedByServer
  t.ok(
    [...sockets].every((s) => s.destroyed),
    'every idle connection is closed',
  )
})
