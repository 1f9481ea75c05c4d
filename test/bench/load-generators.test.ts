// The bench's load generator, wrk, against a local server: it reports latency below a millisecond
// and a run's counts add up. CI installs wrk; without it the bench says so and this test skips.
import { createServer } from 'node:http'
import t from 'tap'
import { findLoadGenerator } from '../../bench/load.js'
import { skipWithout } from '../support/system-programs.js'
import { tempDir } from '../support/sandbox.js'

const server = createServer((req, res) => {
  res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' })
  res.end('{"ok":true}')
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
t.teardown(() => new Promise((resolve) => server.close(resolve)))
const { port } = server.address() as { port: number }

t.test('wrk: latency at microsecond resolution, errors counted', { skip: skipWithout(t, 'wrk', 'wrk') }, async (t) => {
  const load = await findLoadGenerator(await tempDir(t), undefined)
  const run = (path: string, connections: number) =>
    load.run({ url: `http://127.0.0.1:${port}${path}`, method: 'GET', headers: {}, connections, seconds: 1 })
  const ok = await run('/', 2)
  t.ok(ok.requests > 100 && ok.requestsPerSecond > 0, `requests were sent (${ok.requests})`)
  t.ok(ok.p50Ms > 0, `p50 is above 0 (${ok.p50Ms} ms)`)
  t.ok(ok.p99Ms >= ok.p50Ms, `p99 (${ok.p99Ms} ms) ≥ p50`)
  t.equal(ok.errors, 0, 'no errors against a server that answers 200')
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
})
