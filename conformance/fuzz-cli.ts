// npm run fuzz: fuzz.ts at length against a real server and data file. FUZZ_RUNS, FUZZ_TIME_LIMIT_S,
// FUZZ_SEED; FUZZ_API=control fuzzes the control API instead.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { startSandbox } from '../src/sandbox.js'
import { CONTROL_SPEC_FILE, SPEC_FILE } from '../src/paths.js'
import { loadContract } from './contract.js'
import { runFuzz } from './fuzz.js'
import { unfetchable } from '../bench/soak.js'

const API_KEY = 'fuzz-key'
const ADMIN_TOKEN = 'fuzz-admin-token'
const control = process.env['FUZZ_API'] === 'control'
const runs = Number(process.env['FUZZ_RUNS'] ?? 50_000)
const timeLimitMs = Number(process.env['FUZZ_TIME_LIMIT_S'] ?? 600) * 1000
const seed =
  process.env['FUZZ_SEED'] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env['FUZZ_SEED'])

const dir = await mkdtemp(join(tmpdir(), 'animal-store-fuzz-'))
// Anything thrown outside a request is a crash the fuzzer found: report it, then fail.
let crash: unknown
process.on('uncaughtException', (error) => (crash ??= error))
process.on('unhandledRejection', (error) => (crash ??= error))

let exitCode = 0
const config = loadConfig([], {
  PORT: '0',
  API_KEYS: API_KEY,
  ADMIN_TOKEN,
  DATA_FILE: join(dir, 'db.json'),
  LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'silent',
})
if (config === 'help') throw new Error('unexpected help')
const sandbox = await startSandbox(config, createLogger(config.logLevel))
const healthy = async (): Promise<boolean> =>
  (await fetch(`${sandbox.origin}/healthz`, { signal: AbortSignal.timeout(5_000) })).status === 200
const contract = await loadContract(control ? CONTROL_SPEC_FILE : SPEC_FILE)
const started = performance.now()
console.log(
  `fuzzing ${sandbox.origin}${contract.spec.basePath}: up to ${runs} cases or ${timeLimitMs / 1000} s, FUZZ_SEED=${seed}`,
)
try {
  const stats = await runFuzz(
    contract,
    {
      port: Number(new URL(sandbox.origin).port),
      basePath: contract.spec.basePath,
      apiKey: control ? ADMIN_TOKEN : API_KEY,
    },
    { runs, timeLimitMs, seed, healthy, hugeUpTo: control ? 50_000 : 500_000, ownPathsOnly: control },
  )
  console.log(
    `${stats.cases} cases in ${Math.round((performance.now() - started) / 1000)} s; by status ${JSON.stringify(Object.fromEntries([...stats.byStatus].sort(([a], [b]) => a - b)))}`,
  )
  const lost = await unfetchable(sandbox.baseUrl, API_KEY, stats.created)
  console.log(
    `${stats.created.length} pets acknowledged, ${lost.length} of them not fetchable${lost.length ? `: ${lost.join(', ')}` : ''}`,
  )
  if (lost.length > 0 || !(await healthy())) exitCode = 1
} catch (error) {
  // fast-check's report: the seed, the path and the shrunk case with its problems.
  console.error((error as Error).message)
  exitCode = 1
}
if (crash) {
  console.error('the server process threw outside a request:', crash)
  exitCode = 1
}
await sandbox.close()
await rm(dir, { recursive: true, force: true })
console.log(exitCode === 0 ? 'fuzz: no contract violation found' : 'fuzz: FAILED')
process.exit(exitCode)
