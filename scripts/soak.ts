// npm run soak: a bounded mixed load (reads, creates, bad requests) against the CLI in its own
// process, SOAK_SECONDS long (default 150), reporting its resident memory as it goes. Fails on any
// wrong answer, a lost create, an unhealthy server, or memory that keeps climbing.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { rssMiB, runSoak, unfetchable } from '../bench/soak.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const API_KEY = 'soak-key'
const seconds = Number(process.env['SOAK_SECONDS'] ?? 150)
const workers = Number(process.env['SOAK_WORKERS'] ?? 6)
// After the first half the heap has found its size; the second half may add this much at most,
// plus the store's own growth: every create is kept, and a stored pet costs about 0.9 KiB of
// resident memory on Node 20, V8's heap headroom included (measured: 153 MiB after 174,000 creates,
// from 54 MiB). A leak of what requests carry grows with every request, not with every pet.
const MAX_SECOND_HALF_GROWTH_MIB = 48
const RESIDENT_KIB_PER_STORED_PET = 1

const dir = await mkdtemp(join(tmpdir(), 'animal-store-soak-'))
const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts')], {
  cwd: ROOT,
  env: {
    ...process.env,
    PORT: '0',
    API_KEYS: API_KEY,
    DATA_FILE: join(dir, 'db.json'),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
  },
  stdio: ['ignore', 'ignore', 'pipe'],
})
const baseUrl = await new Promise<string>((resolve, reject) => {
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    const match = /API: +(http:\/\/\S+)/.exec(stderr)
    if (match?.[1]) resolve(match[1])
  })
  child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)))
})
const pid = child.pid as number

const samples: Array<{ s: number; rss: number }> = [{ s: 0, rss: rssMiB(pid) }]
let unhealthy = 0
console.log(
  `soak: ${seconds} s, ${workers} workers against ${baseUrl} (pid ${pid}); RSS at start ${samples[0]?.rss} MiB`,
)
const result = await runSoak({
  baseUrl,
  apiKey: API_KEY,
  durationMs: seconds * 1000,
  workers,
  onTick: (elapsed) => {
    const s = Math.round(elapsed / 1000)
    fetch(baseUrl.replace(/\/v1$/, '/healthz')).then(
      (res) => void (res.status === 200 || unhealthy++),
      () => void unhealthy++,
    )
    if (s % 10 === 0 && s > (samples[samples.length - 1]?.s ?? 0)) {
      samples.push({ s, rss: rssMiB(pid) })
      console.log(`  ${String(s).padStart(4)} s  RSS ${rssMiB(pid)} MiB`)
    }
  },
})
samples.push({ s: seconds, rss: rssMiB(pid) })
const lost = await unfetchable(baseUrl, API_KEY, result.created)
const start = samples[0]?.rss ?? 0
const middle = samples[Math.floor(samples.length / 2)]?.rss ?? 0
const end = samples[samples.length - 1]?.rss ?? 0
const peak = Math.max(...samples.map((x) => x.rss))
console.log(`${result.requests} requests: ${JSON.stringify(result.byKind)}`)
console.log(
  `RSS start ${start} MiB, middle ${middle} MiB, end ${end} MiB, peak ${peak} MiB; ${result.created.length} pets created`,
)
console.log(
  `wrong answers: ${result.problems.length}${result.problems.length ? `\n  ${result.problems.slice(0, 5).join('\n  ')}` : ''}`,
)
console.log(`lost creates: ${lost.length}; failed health checks: ${unhealthy}`)
// The load is steady: about half of the creates come in the second half.
const createdInSecondHalf = Math.round(result.created.length / 2)
const bound = MAX_SECOND_HALF_GROWTH_MIB + Math.round((createdInSecondHalf * RESIDENT_KIB_PER_STORED_PET) / 1024)
const levelled = end - middle <= bound
console.log(
  `memory ${levelled ? 'levelled off' : 'kept climbing'}: ${Math.round((end - middle) * 10) / 10} MiB in the second half (bound ${bound} MiB: ${MAX_SECOND_HALF_GROWTH_MIB} MiB and ${createdInSecondHalf} pets stored meanwhile)`,
)
child.kill('SIGTERM')
await new Promise((resolve) => child.once('exit', resolve))
await rm(dir, { recursive: true, force: true })
const ok = result.problems.length === 0 && lost.length === 0 && unhealthy === 0 && levelled
console.log(ok ? 'soak: passed' : 'soak: FAILED')
process.exit(ok ? 0 : 1)
