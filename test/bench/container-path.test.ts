// The container-path bench must not rot: a tiny run against the image times `docker run` to
// healthy and the module's start(), and leaves no container behind. Its figures are not judged here.
import { execFile, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { DOCKER, IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'

t.setTimeout(5 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false

t.test('bench/container-path.ts --smoke times docker run and start(), and cleans up', { skip }, async (t) => {
  await ensureImage()
  const containersOf = async (): Promise<string> =>
    (
      await promisify(execFile)(DOCKER, ['ps', '-aq', '--filter', 'label=animal-store-sandbox.bench=container-path'])
    ).stdout.trim()
  const out = await tempDir(t)
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench/container-path.ts'), '--smoke', '--out', out],
    {
      cwd: ROOT,
      env: { ...process.env, ANIMAL_STORE_IMAGE: IMAGE, TESTCONTAINERS_RYUK_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 4 * 60_000)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
  t.equal(code, 0, output)
  const result = JSON.parse(await readFile(join(out, 'container-path-smoke.json'), 'utf8'))
  t.ok(result.imageMiB > 0, 'the image size is reported')
  for (const name of ['dockerRunToHealthy', 'moduleStart']) {
    t.equal(result[name].runsMs.length, 2, `${name}: every run`)
    t.ok(result[name].p50Ms > 0, `${name}: a p50`)
    t.ok(result[name].p99Ms >= result[name].p50Ms, `${name}: a p99, not below the p50`)
  }
  t.ok(
    result.targets.every((row: { met: unknown }) => typeof row.met === 'boolean'),
    'both targets judged',
  )
  t.equal(await containersOf(), '', 'no container the bench started is left behind')
})
