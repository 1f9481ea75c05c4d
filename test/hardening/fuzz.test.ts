// The spec-driven fuzzer (conformance/fuzz.ts), bounded for `npm test`: a couple of thousand generated
// requests against a real server with a real data file. `npm run fuzz` runs many more.
// FUZZ_SEED=<n> replays a run; a failure prints fast-check's seed, path and the shrunk request.
import t, { type Test } from 'tap'
import { createLogger } from '../../src/logger.js'
import { startSandbox, type Sandbox } from '../../src/sandbox.js'
import { CONTROL_SPEC_FILE } from '../../src/paths.js'
import { loadContract } from '../../conformance/contract.js'
import { runFuzz } from '../../conformance/fuzz.js'
import { unfetchable } from '../../bench/soak.js'
import { API_KEY, startTestSandbox } from '../support/sandbox.js'

const RUNS = 5_000
const ADMIN_RUNS = 2_000
const FUZZ_ADMIN_TOKEN = 'fuzz-admin-token'
// A safety bound on a slow machine: generation stops after this long (the count run is reported).
const TIME_LIMIT_MS = 75_000

/** Fuzzes the operations of `specFile` on `sandbox` with `key` (FUZZ_SEED, or a random seed); it must stay healthy. */
async function fuzz(
  t: Test,
  sandbox: Sandbox,
  key: string,
  options: { runs: number; hugeUpTo: number; specFile?: URL },
) {
  const contract = await loadContract(options.specFile)
  const healthy = async (): Promise<boolean> =>
    (await fetch(`${sandbox.origin}/healthz`, { signal: AbortSignal.timeout(5_000) })).status === 200
  const seed =
    process.env['FUZZ_SEED'] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env['FUZZ_SEED'])
  t.comment(`FUZZ_SEED=${seed}`)
  const stats = await runFuzz(
    contract,
    { port: Number(new URL(sandbox.origin).port), basePath: contract.spec.basePath, apiKey: key },
    { ...options, timeLimitMs: TIME_LIMIT_MS, healthy, seed, ownPathsOnly: options.specFile !== undefined },
  )
  const byStatus = JSON.stringify(Object.fromEntries([...stats.byStatus].sort(([a], [b]) => a - b)))
  t.comment(`${stats.cases} cases; answers by status: ${byStatus}; ${stats.created.length} pets created`)
  t.ok(await healthy(), 'GET /healthz still answers 200 after the run')
  return stats
}

t.test(
  `${RUNS} spec-driven requests: no 5xx, every answer keeps the contract, every acknowledged create is kept`,
  async (t) => {
    const sandbox = await startTestSandbox(t)
    const stats = await fuzz(t, sandbox, API_KEY, { runs: RUNS, hugeUpTo: 100_000 })
    t.ok(stats.cases > 0, 'cases ran')
    t.ok(
      stats.created.length > 0,
      'the generator reaches createPet with valid bodies, so acknowledged creates are checked',
    )

    const missing = await unfetchable(sandbox.baseUrl, API_KEY, stats.created)
    t.same(missing, [], 'every acknowledged create can be fetched, exactly as it was answered')

    // Acknowledged means on disk: a new server on the same data file has every one of them.
    await sandbox.close()
    const restarted = await startSandbox(sandbox.config, createLogger('silent'))
    t.teardown(() => restarted.close())
    t.same(
      stats.created
        .filter((pet) => JSON.stringify(restarted.store.get(pet.id)) !== JSON.stringify(pet))
        .map((pet) => pet.id),
      [],
      'every acknowledged create is in the data file after a restart',
    )
  },
)

t.test(
  `${ADMIN_RUNS} requests generated from the control API's spec: no 5xx, every answer keeps its contract`,
  async (t) => {
    const sandbox = await startTestSandbox(t, { ADMIN_TOKEN: FUZZ_ADMIN_TOKEN })
    const options = { runs: ADMIN_RUNS, hugeUpTo: 20_000, specFile: CONTROL_SPEC_FILE }
    const stats = await fuzz(t, sandbox, FUZZ_ADMIN_TOKEN, options)
    t.ok(
      [...stats.byStatus.keys()].some((status) => status >= 200 && status < 300),
      'the generator reaches the operations with valid input',
    )
  },
)
