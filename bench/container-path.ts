// The container path, as a suite pays it once per run: `docker run` of the image to its first 200
// on /healthz through a published port, and the Testcontainers module's start() (create, start,
// wait over HTTP), each timed over several runs (p50 and p99), with the image's size beside them.
//
//   tsx bench/container-path.ts [--smoke] [--out DIR]
//
// Every container started here is removed by its id; every wait is bounded.
import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { get } from 'node:http'
import { join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { AnimalStoreContainer } from '../modules/node/src/index.js'
import { ROOT, freePort } from './servers.js'

const run = promisify(execFile)
const { values: flags } = parseArgs({
  options: { smoke: { type: 'boolean', default: false }, out: { type: 'string' } },
})
const RUNS = flags.smoke === true ? 2 : 20
const OUT_DIR = flags.out ?? join(ROOT, 'bench/results')
const IMAGE = process.env['ANIMAL_STORE_IMAGE'] ?? 'animal-store-sandbox:local'
// Testcontainers' reaper is an image of its own, which a machine without a registry cannot pull;
// this script stops what it starts.
process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true'
const DOCKER = process.env['DOCKER'] ?? '/usr/bin/docker'
const TIMEOUT_MS = 30_000
/** On every container this bench starts: its smoke test checks that none is left. */
const BENCH_LABEL = 'animal-store-sandbox.bench=container-path'

interface Figures {
  /** The median. */
  readonly p50Ms: number
  /** By nearest rank: with fewer than 100 runs, the slowest. */
  readonly p99Ms: number
  readonly runsMs: number[]
}

function figures(runsMs: number[]): Figures {
  const sorted = [...runsMs].sort((a, b) => a - b)
  const middle = sorted.length / 2
  const median =
    sorted.length % 2
      ? (sorted[Math.floor(middle)] ?? NaN)
      : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2
  const p99 = sorted[Math.ceil(0.99 * sorted.length) - 1] ?? NaN
  return { p50Ms: Math.round(median), p99Ms: Math.round(p99), runsMs: runsMs.map((ms) => Math.round(ms)) }
}

/** The status of one GET on a connection of its own, or 0 when none comes (as curl in a loop). */
function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: 1000 }, (response) => {
      response.resume()
      response.once('end', () => resolve(response.statusCode ?? 0))
      response.once('error', () => resolve(0))
    })
    request.once('error', () => resolve(0))
    request.once('timeout', () => request.destroy())
  })
}

/** `docker run` to the first 200 on /healthz through the published port, in ms. */
async function dockerRunToHealthy(): Promise<number> {
  // Chosen up front, as a user's `-p 4010:4010` is.
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/healthz`
  const started = performance.now()
  const { stdout } = await run(DOCKER, [
    'run',
    '-d',
    '--rm',
    '--label',
    BENCH_LABEL,
    '-p',
    `127.0.0.1:${port}:4010`,
    '-e',
    'DATA_FILE=:memory:',
    IMAGE,
  ])
  const id = stdout.trim()
  try {
    // Polled once docker run has returned (the container has started), as the README's
    // `docker run -d ...; until curl ...` does. Polled before, a connection the proxy accepts while
    // the container's network is not up yet waits out a TCP retransmission, about 1 s.
    for (;;) {
      const ok = (await status(url)) === 200
      if (ok) return performance.now() - started
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`${IMAGE}: no 200 on /healthz within ${TIMEOUT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  } finally {
    await run(DOCKER, ['rm', '-f', id]).catch(() => undefined)
  }
}

/** The module's start(), until it resolves (it waits for /healthz itself), in ms. */
async function moduleStart(): Promise<number> {
  const started = performance.now()
  const sandbox = await new AnimalStoreContainer(IMAGE)
    .withInMemory()
    .withLabels({ [BENCH_LABEL.split('=')[0] ?? '']: BENCH_LABEL.split('=')[1] ?? '' })
    .start()
  const ms = performance.now() - started
  await sandbox.stop()
  return ms
}

const engine = await run(DOCKER, ['image', 'inspect', IMAGE]).then(
  () => true,
  () => false,
)
if (!engine) {
  console.log(`container path: skipped, no Docker engine answers with the image ${IMAGE} (npm run image builds it)`)
  process.exit(0)
}
const sizeBytes = Number((await run(DOCKER, ['image', 'inspect', '-f', '{{.Size}}', IMAGE])).stdout.trim())
// One of each first, not counted: the first start after a build pays for the image's layers.
await dockerRunToHealthy()
await moduleStart()
const dockerRun: number[] = []
const start: number[] = []
for (let i = 0; i < RUNS; i++) {
  dockerRun.push(await dockerRunToHealthy())
  start.push(await moduleStart())
}
const runFigures = figures(dockerRun)
const startFigures = figures(start)
const result = {
  image: IMAGE,
  imageMiB: Math.round((sizeBytes / 2 ** 20) * 10) / 10,
  dockerRunToHealthy: runFigures,
  moduleStart: startFigures,
  // The targets are on the median; the p99 is beside it.
  targets: [
    {
      target: 'docker run to healthy <= 300 ms',
      p50: runFigures.p50Ms,
      p99: runFigures.p99Ms,
      limit: 300,
    },
    { target: "the module's start() <= 500 ms", p50: startFigures.p50Ms, p99: startFigures.p99Ms, limit: 500 },
  ].map((row) => ({ ...row, met: row.p50 <= row.limit })),
}
await mkdir(OUT_DIR, { recursive: true })
const file = join(OUT_DIR, flags.smoke === true ? 'container-path-smoke.json' : 'container-path.json')
await writeFile(file, `${JSON.stringify(result, null, 2)}\n`)
console.log(`\nThe container path (${IMAGE}, ${result.imageMiB} MiB), p50 and p99 of ${RUNS} runs, in ms`)
console.table(result.targets)
console.log(`written to ${file}`)
