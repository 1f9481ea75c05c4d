// `animal-store-sandbox shrink <bundle> -- <test command>`: which of the faults that fired in a
// bundle a failing test needs. Each hit becomes a fault of its own (after: call - 1, times: 1); the
// test command runs against a sandbox staged from the bundle with a subset of them in
// ANIMAL_STORE_FAULTS, and ddmin narrows them to the smallest set that still fails it.
import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import type { Fault } from '../namespaces/faults.js'
import type { Bundle } from '../control/bundle.js'
import { ddmin } from './ddmin.js'
import { openBundle, usage } from './read-bundle.js'
import { stageSandbox } from './restage.js'

export const SHRINK_HELP = `Usage: animal-store-sandbox shrink <bundle.json> [--max-runs <n>] [--timeout-ms <ms>] -- <test command…>

Finds the smallest set of the faults that fired in the bundle that still fails the test command.
Each run starts a sandbox of its own in the bundle's starting state and runs the command with:

  ANIMAL_STORE_URL          the sandbox's origin, e.g. http://127.0.0.1:41234 (the API under /v1)
  ANIMAL_STORE_API_KEY      its API key
  ANIMAL_STORE_ADMIN_TOKEN  its admin token
  ANIMAL_STORE_NAMESPACE    the bundle's namespace
  ANIMAL_STORE_FAULTS       the faults to arm, a JSON array of POST /__admin/faults bodies

The test arms ANIMAL_STORE_FAULTS itself (after any reset of its namespace, which clears faults).
A run fails when the command exits non-zero. Prints the smallest failing set on stdout, as that
JSON array.

  --max-runs <n>      runs of the command at most (default 64)
  --timeout-ms <ms>   a run still going after this is stopped and counts as failing (default 300000)

Exits 0 with the smallest set (no single fault of it can go), 1 when the test does not fail with
every fault that fired, 2 when it could not run, 3 when --max-runs ended the search first (the
smallest failing set found so far is printed).
`

export type ArmableFault = Record<string, unknown>

/** One fault per call a fault of the bundle hit, on that call alone. */
export function faultsThatFired(faults: readonly Fault[]): ArmableFault[] {
  return faults.flatMap(({ status, delayMs, fault, hits }) =>
    hits.map(({ operationId, call }) =>
      Object.fromEntries(
        Object.entries({ operationId, status, delayMs, fault, after: call - 1, times: 1 }).filter(
          ([, value]) => value !== undefined,
        ),
      ),
    ),
  )
}

export async function shrinkCommand(args: readonly string[]): Promise<number> {
  const dashes = args.indexOf('--')
  const command = dashes === -1 ? [] : args.slice(dashes + 1)
  let parsed
  try {
    parsed = parseArgs({
      args: dashes === -1 ? [...args] : args.slice(0, dashes),
      allowPositionals: true,
      options: {
        'max-runs': { type: 'string' },
        'timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    return usage((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    process.stdout.write(SHRINK_HELP)
    return 0
  }
  const [file, ...extra] = positionals
  if (file === undefined || extra.length > 0) return usage('give one bundle file')
  if (command.length === 0) return usage('give the test command after --')
  const maxRuns = Number(values['max-runs'] ?? 64)
  const timeoutMs = Number(values['timeout-ms'] ?? 300_000)
  if (!Number.isInteger(maxRuns) || maxRuns < 1) return usage('--max-runs must be a whole number from 1')
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) return usage('--timeout-ms must be a whole number from 1')
  const bundle = await openBundle(file)
  if (bundle === undefined) return 2
  const fired = faultsThatFired(bundle.faults)
  let run = 0
  const fails = async (faults: readonly ArmableFault[]): Promise<boolean> => {
    const failed = await runTest(bundle, command, faults, timeoutMs)
    process.stderr.write(`run ${++run}: ${faults.length} of ${fired.length} faults: ${failed ? 'fails' : 'passes'}\n`)
    return failed
  }
  if (!(await fails(fired))) {
    process.stderr.write('The test passes with every fault that fired: the bundle does not reproduce its failure\n')
    return 1
  }
  const found = await ddmin(fired, fails, maxRuns - 1)
  process.stderr.write(
    found.complete
      ? `The smallest set that fails the test: ${found.items.length} of ${fired.length} faults, in ${run} runs\n`
      : `--max-runs ${maxRuns} ended the search: the smallest failing set so far, ${found.items.length} of ${fired.length} faults\n`,
  )
  process.stdout.write(`${JSON.stringify(found.items)}\n`)
  return found.complete ? 0 : 3
}

/** Runs the test command against a sandbox staged from the bundle; true when it fails. */
async function runTest(
  bundle: Bundle,
  [program, ...args]: readonly string[],
  faults: readonly ArmableFault[],
  timeoutMs: number,
): Promise<boolean> {
  const sandbox = await stageSandbox(bundle)
  try {
    if (!bundle.clock.real)
      await sandbox.control('POST', '/clock', { now: new Date(Date.now() + bundle.clock.offsetMs).toISOString() })
    const child = spawn(program as string, args, {
      stdio: 'ignore',
      env: {
        ...process.env,
        ANIMAL_STORE_URL: sandbox.origin,
        ANIMAL_STORE_API_KEY: sandbox.apiKey,
        ANIMAL_STORE_ADMIN_TOKEN: sandbox.adminToken,
        ANIMAL_STORE_NAMESPACE: sandbox.namespace,
        ANIMAL_STORE_FAULTS: JSON.stringify(faults),
      },
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(127))
      child.once('close', (exit) => resolve(exit))
    })
    clearTimeout(timer)
    return code !== 0
  } finally {
    await sandbox.close()
  }
}
