// Prism runs as a child process: it must be ready before use and gone afterwards, whatever happens.
import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { startPrism } from '../../conformance/prism.js'
import { SPEC_FILE } from '../../src/paths.js'
import { ROOT, tempDir, waitFor } from '../support/sandbox.js'

const SPEC = fileURLToPath(SPEC_FILE)

t.test('startPrism waits until Prism answers, and stop() leaves no process behind', async (t) => {
  const prism = await startPrism({ spec: SPEC, upstream: 'http://127.0.0.1:9/v1', errors: true })
  t.teardown(() => prism.stop())
  // With --errors, a request without Authorization is answered by Prism itself: it is up.
  const res = await fetch(`${prism.url}/pets`)
  t.equal(res.status, 401)
  t.match(res.headers.get('content-type'), /application\/problem\+json/)
  await prism.stop()
  t.equal(isAlive(prism.pid), false, 'the Prism process is gone')
})

t.test('a Prism that cannot start is reported with its output, and nothing is left running', async (t) => {
  const dir = await tempDir(t)
  const broken = join(dir, 'broken.yaml')
  await writeFile(broken, 'openapi: 3.1.0\ninfo: { title: broken, version: "1" }\npaths: {}\n')
  const error = await startPrism({ spec: broken, upstream: 'http://127.0.0.1:9/v1', errors: false }).catch(
    (e: Error) => e,
  )
  t.match(String(error), /Prism \(pid \d+\) exited before it was listening[\s\S]*No operations found/)
  t.equal(isAlive(pidIn(error)), false, 'the Prism process is gone')
})

t.test('a readiness wait that runs out stops the child it started', async (t) => {
  const error = await startPrism({
    spec: SPEC,
    upstream: 'http://127.0.0.1:9/v1',
    errors: false,
    readyTimeoutMs: 1,
  }).catch((e: Error) => e)
  t.match(String(error), /Prism \(pid \d+\) was not listening after 1 ms/)
  t.equal(isAlive(pidIn(error)), false, 'the Prism process is gone')
})

t.test('Prism exits with the process that started it, even when that process is killed with SIGKILL', async (t) => {
  // A parent that starts Prism, prints its pid, then waits to be killed.
  const script = `import { startPrism } from ${JSON.stringify(join(ROOT, 'conformance/prism.ts'))}
const prism = await startPrism({ spec: ${JSON.stringify(SPEC)}, upstream: 'http://127.0.0.1:9/v1', errors: false })
console.log('PRISM_PID=' + prism.pid)
setInterval(() => {}, 1000)`
  const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => void parent.kill('SIGKILL'))
  let output = ''
  parent.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /PRISM_PID=(\d+)/.exec(output)
      if (match) resolve(Number(match[1]))
    })
    parent.once('exit', () => reject(new Error(`the parent exited before Prism started:\n${output}`)))
  })
  t.teardown(() => {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  })
  t.equal(isAlive(pid), true, 'Prism runs')
  parent.kill('SIGKILL')
  // Bounded, not timed: on a busy machine the exit can take seconds to be noticed.
  await waitFor(() => !isAlive(pid), { what: 'Prism to exit after its parent' })
  t.equal(isAlive(pid), false, 'Prism is gone after its parent')
})

function pidIn(error: unknown): number | undefined {
  const match = /\(pid (\d+)\)/.exec(String(error))
  return match ? Number(match[1]) : undefined
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
