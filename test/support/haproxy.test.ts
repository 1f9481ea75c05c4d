// The load balancer the replica tests put in front of the sandboxes, here in front of plain HTTP
// servers: it spreads requests over them, stops sending to one whose health check fails, sends a
// request whose connection failed to another, and never sends a POST twice.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { haproxySkip, startHaproxy, type Haproxy } from './haproxy.js'
import { waitFor } from './sandbox.js'

const skip = haproxySkip(t)

interface Backend {
  readonly url: string
  /** What GET /readyz, the balancer's check, answers, and after how long. */
  readyz: number
  readyzDelayMs: number
  /** The checks it has answered. */
  checks: number
  /** The requests other than health checks it has received. */
  readonly received: string[]
  close(): void
}

/** A server answering 200 with its name, `onPost` deciding what a POST gets. */
async function backend(t: Test, onPost: (req: IncomingMessage, res: ServerResponse) => void): Promise<Backend> {
  const state = { readyz: 200, readyzDelayMs: 0, checks: 0, received: [] as string[] }
  const server = createServer((req, res) => {
    if (req.url === '/readyz')
      return void setTimeout(() => {
        state.checks++
        res.writeHead(state.readyz).end()
      }, state.readyzDelayMs)
    state.received.push(`${req.method} ${req.url}`)
    if (req.method === 'POST') return onPost(req, res)
    res.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = (): void => {
    server.close()
    server.closeAllConnections()
  }
  t.teardown(close)
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close })
}

const answer = (_req: IncomingMessage, res: ServerResponse): void => void res.writeHead(201).end()

/** Who served each of `count` GETs through the balancer, in order. */
async function servers(haproxy: Haproxy, count: number): Promise<Array<string | undefined>> {
  const served = []
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${haproxy.url}/pets/${i}`)
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`)
    served.push(haproxy.servedBy(response))
  }
  return served
}

t.test('requests go round robin, and a server named in X-Served-By answered each', { skip }, async (t) => {
  const [a, b] = [await backend(t, answer), await backend(t, answer)]
  const haproxy = await startHaproxy([a.url, b.url], t)
  const served = await servers(haproxy, 6)
  t.same(new Set(served), new Set([a.url, b.url]), 'both served')
  t.same([a.received.length, b.received.length], [3, 3], 'three each')
  const post = await fetch(`${haproxy.url}/pets`, { method: 'POST', body: '{}' })
  t.equal(post.status, 201, 'a POST goes through')
})

t.test('a server whose health check fails gets nothing until it passes again', { skip }, async (t) => {
  const [a, b] = [await backend(t, answer), await backend(t, answer)]
  const haproxy = await startHaproxy([a.url, b.url], t)
  b.readyz = 503
  await waitFor(async () => (await servers(haproxy, 4)).every((url) => url === a.url), {
    what: 'HAProxy to send every request to the healthy server',
  })
  const before = b.received.length
  t.same(new Set(await servers(haproxy, 10)), new Set([a.url]), 'only the healthy server serves')
  t.equal(b.received.length, before, 'the unhealthy one received none')
  t.match(haproxy.output(), /replica2 is DOWN/, 'HAProxy said so')

  b.readyz = 200
  await waitFor(async () => (await servers(haproxy, 4)).includes(b.url), {
    what: 'the server to be sent requests again',
  })
})

t.test('a server whose check is slow but within its own bound stays in', { skip }, async (t) => {
  const [a, b] = [await backend(t, answer), await backend(t, answer)]
  const haproxy = await startHaproxy([a.url, b.url], t)
  // A replica busy on a loaded core answers late; its own bound on /readyz (3 s) says when it is not ready.
  b.readyzDelayMs = 2_000
  const from = b.checks
  await waitFor(async () => b.checks >= from + 3, { what: 'three slow checks answered', timeoutMs: 20_000 })
  t.notMatch(haproxy.output(), /replica2 is DOWN/, 'HAProxy kept it')
  t.same(new Set(await servers(haproxy, 4)), new Set([a.url, b.url]), 'both still serve')
})

t.test('a server that is gone: its requests go to another, none fails', { skip }, async (t) => {
  const [a, b] = [await backend(t, answer), await backend(t, answer)]
  const haproxy = await startHaproxy([a.url, b.url], t)
  b.close()
  // Before a health check has seen it down: the connection is refused, so the request goes elsewhere.
  t.same(new Set(await servers(haproxy, 6)), new Set([a.url]), 'every GET answered 200, by the live server')
  const post = await fetch(`${haproxy.url}/pets`, { method: 'POST', body: '{}' })
  t.equal(post.status, 201, 'so is a POST: it had reached no server')
})

t.test('a POST whose server dies before answering is not sent again', { skip }, async (t) => {
  // Either server, whichever gets the POST, reads it and dies with it unanswered.
  const dies = (req: IncomingMessage): void => void req.resume().once('end', () => req.socket.destroy())
  const [a, b] = [await backend(t, dies), await backend(t, dies)]
  const haproxy = await startHaproxy([a.url, b.url], t)
  const response = await fetch(`${haproxy.url}/pets`, { method: 'POST', body: '{"name":"Rex"}' })
  t.equal(response.status, 502, 'the client is told the server failed')
  t.equal(haproxy.servedBy(response), undefined, 'by HAProxy itself')
  t.same([...a.received, ...b.received], ['POST /pets'], 'one server received it, once')
})
