// A short soak in `npm test`: ~20 s of mixed load against the CLI in its own process. The server
// must stay healthy, answer every request as the contract says, and keep every create. No timing
// is asserted; memory gets a generous bound (see below). `npm run soak` runs it for minutes.
import t from 'tap'
import { join } from 'node:path'
import { API_KEY, spawnCli, tempDir } from '../support/sandbox.js'
import { runSoak } from '../../bench/soak.js'

const DURATION_MS = 18_000
const WARM_UP_MS = 4_000
// The bound catches a leak of what requests carry (a retained 1 MiB body per 413, a socket or a
// request object per request: tens of thousands of requests run here), not the heap settling:
// V8 grows its heap lazily, and a small server's resident size moves by tens of MiB on its own.
const MAX_GROWTH_AFTER_WARM_UP_MIB = 128

t.test('a short soak: mixed load, healthy throughout, every create kept, memory bounded', async (t) => {
  const dir = await tempDir(t)
  const cli = await spawnCli(t, { API_KEYS: API_KEY, DATA_FILE: join(dir, 'db.json') })
  const origin = new URL(cli.baseUrl).origin
  const { rss, ...result } = await runSoak(origin, cli.child.pid, API_KEY, DURATION_MS)
  const mib = rss.map((sample) => sample.mib)
  const [start, end] = [mib[0] ?? NaN, mib.at(-1) ?? NaN]
  const afterWarmUp = rss.find(({ elapsedMs }) => elapsedMs >= WARM_UP_MS)?.mib
  t.comment(
    `${result.requests} requests ${JSON.stringify(result.byKind)}; RSS start ${start} MiB, after warm-up ${afterWarmUp} MiB, end ${end} MiB, peak ${Math.max(...mib)} MiB`,
  )
  t.same(result.problems, [], 'every answer is what the request deserved')
  t.ok(result.byKind['create'] && result.byKind['oversized body'] !== undefined, 'creates and bad requests both ran')
  t.equal(result.unhealthy, 0, 'GET /healthz answered 200 every second')
  t.same(result.lost, [], 'every acknowledged create is fetchable')
  t.ok(
    end - (afterWarmUp ?? start) < MAX_GROWTH_AFTER_WARM_UP_MIB,
    `RSS grew by less than ${MAX_GROWTH_AFTER_WARM_UP_MIB} MiB after the warm-up`,
  )
  t.equal(cli.child.exitCode, null, 'the server is still running')
})
