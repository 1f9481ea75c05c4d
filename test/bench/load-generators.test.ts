// The bench's load generators against a local server: wrk over HTTP/1.1, plain and over TLS, and
// h2load over HTTP/2 report latency below a millisecond, and a run's counts add up, by kind. CI installs
// both; without them the bench says so and these tests skip.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { findLoadGenerators, type LoadGenerator } from '../../bench/load.js'
import { tlsFiles } from '../../src/tls/tls.js'
import { skipWithout } from '../support/system-programs.js'
import { tempDir } from '../support/sandbox.js'

const answer = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
  res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' })
  res.end('{"ok":true}')
}
// As the bench's servers serve HTTPS: HTTP/2 and HTTP/1.1 on one port, a certificate from a CA made now.
const { cert, key } = await tlsFiles({ kind: 'auto', names: [] }, undefined)
const servers = { plain: createServer(answer), secure: createSecureServer({ allowHTTP1: true, cert, key }, answer) }
const ports = { plain: 0, secure: 0 }
for (const [name, server] of Object.entries(servers) as Array<[keyof typeof servers, (typeof servers)['plain']]>) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  ports[name] = (server.address() as AddressInfo).port
}

const skip = skipWithout(t, 'wrk', 'wrk') || skipWithout(t, 'h2load', 'nghttp2-client')

/** One second of GETs of `url` from `load`. */
const second = (load: LoadGenerator, url: string, connections: number) =>
  load.run({ url, method: 'GET', headers: {}, connections, seconds: 1 })

/** `load` against `origin`: its counts add up, its latency has microseconds, a 404 is an error. */
async function measures(t: Test, load: LoadGenerator, origin: string): Promise<void> {
  const run = (path: string, connections: number) => second(load, `${origin}${path}`, connections)
  const ok = await run('/', 2)
  t.ok(ok.requests > 100 && ok.requestsPerSecond > 0, `requests were sent (${ok.requests})`)
  t.ok(ok.p50Ms > 0, `p50 is above 0 (${ok.p50Ms} ms)`)
  t.ok(ok.p99Ms >= ok.p50Ms, `p99 (${ok.p99Ms} ms) ≥ p50`)
  t.equal(ok.errors, 0, 'no errors against a server that answers 200')
  t.same(ok.failures, {}, 'and no failure of any kind')
  // A local answer takes well under a millisecond: whole milliseconds would make every figure an integer.
  t.not(
    Number.isInteger(ok.p50Ms) && Number.isInteger(ok.p99Ms),
    true,
    `figures have a fraction of a millisecond (p50 ${ok.p50Ms}, p99 ${ok.p99Ms})`,
  )

  const bad = await run('/missing', 1)
  t.ok(
    bad.errors > 0 && bad.errors === bad.requests,
    `every 404 is counted as an error (${bad.errors} of ${bad.requests})`,
  )
  // h2load counts by class, and its counts by status may hold one more answer than its total (the last, at the deadline).
  const kind = load.name === 'wrk' ? '404' : '4xx'
  t.same(Object.keys(bad.failures), [kind], `and by kind: ${JSON.stringify(bad.failures)}`)
}

const cases = [
  ['wrk over HTTP/1.1', 'HTTP/1.1', `http://127.0.0.1:${ports.plain}`],
  ['wrk over HTTPS/1.1', 'HTTP/1.1', `https://127.0.0.1:${ports.secure}`],
  ['h2load over HTTP/2', 'HTTP/2', `https://127.0.0.1:${ports.secure}`],
] as const
for (const [name, protocol, origin] of cases)
  t.test(`${name}: latency at microsecond resolution, errors counted`, { skip }, async (t) => {
    const load = (await findLoadGenerators(await tempDir(t), undefined))[protocol]
    t.equal(load.name, name.split(' ')[0])
    await measures(t, load, origin)
  })

t.test('h2load refuses a server that speaks no HTTP/2', { skip }, async (t) => {
  const load = await findLoadGenerators(await tempDir(t), undefined)
  // Over plain HTTP/1.1 it would try h2c, which node:http does not speak: no figure, a clear error.
  await t.rejects(second(load['HTTP/2'], `http://127.0.0.1:${ports.plain}/`, 1), /h2load/)
})
