// The consumer recipes, run as a consumer runs them against the image: one container for the
// whole run, its origin and tokens handed to test workers, a namespace per test through the
// standalone control client.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import t from 'tap'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT } from '../support/sandbox.js'

t.setTimeout(10 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false

/** Runs a command in the repository; resolves with its exit code and output. */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('close', (code) => resolve({ code, output }))
  })
}

t.test(
  'node:test: a global setup starts one container, four workers each test in their own namespace',
  { skip },
  async (t) => {
    await ensureImage()
    // The recipe imports the package by its name (animal-store-sandbox/...): that is dist/.
    const build = await run(['--import', 'tsx', 'scripts/build.ts'])
    t.equal(build.code, 0, build.output)
    const { code, output } = await run([join(ROOT, 'examples/node-test/run.mjs')], { ANIMAL_STORE_IMAGE: IMAGE })
    t.equal(code, 0, output)
    t.match(output, /^# tests 4$/m, 'four tests ran')
    t.match(output, /^# pass 4$/m, 'and passed')
  },
)
