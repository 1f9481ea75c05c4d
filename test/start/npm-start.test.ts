// `npm start` builds only what is missing or out of date, then runs the command in the same
// process: on a built checkout it costs npm's own start-up and a few stat calls, no build. And a
// signal to npm reaches the server. (Every test of `npm start` in the checkout is in this file: one
// elsewhere, run beside the stale build this one makes, would rebuild dist/ under it.)
import { execFile } from 'node:child_process'
import { stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ROOT, tempDir, waitForBanner } from '../support/sandbox.js'

const STAMP = join(ROOT, 'dist', '.built')

function npmStart(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['start', '--silent', '--', ...args], { cwd: ROOT, timeout: 5 * 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}

t.test('a stale or missing build is rebuilt; a fresh one is used as it is', async (t) => {
  // Older than every source: the next start must rebuild.
  await utimes(STAMP, 0, 0).catch(() => undefined)
  const rebuilt = await npmStart(['--help'])
  t.equal(rebuilt.code, 0, rebuilt.stderr)
  t.match(rebuilt.stderr, /npm start: (re)?building dist\//, 'it says why it builds')
  t.match(rebuilt.stdout, /Usage: animal-store-sandbox/, 'then runs the command')
  const builtAt = (await stat(STAMP)).mtimeMs
  t.ok(builtAt > 0, 'the build left its stamp')

  const fresh = await npmStart(['--help'])
  t.equal(fresh.code, 0)
  t.notMatch(fresh.stderr, /building|compiled the API spec/, 'a built checkout is not rebuilt')
  t.match(fresh.stdout, /Usage: animal-store-sandbox/, '--help answers')
  t.equal((await stat(STAMP)).mtimeMs, builtAt, 'the stamp is untouched')
})

t.test('under `npm start`, SIGTERM to npm reaches the server', async (t) => {
  const npm = process.env['npm_execpath']
  if (!npm) {
    t.plan(0, 'not run through npm: npm_execpath is unknown')
    return
  }
  const dir = await tempDir(t)
  const { spawn } = await import('node:child_process')
  const child = spawn(process.execPath, [npm, 'start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', DATA_FILE: join(dir, 'db.json') },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  )
  const { apiUrl: url } = await waitForBanner(child, exited)
  const res = await fetch(`${url}/pets?limit=1`, { headers: { authorization: 'Bearer sandbox-api-key' } })
  t.equal(res.status, 200)
  await res.body?.cancel()
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'npm exits 0 with the server')
  const after = await fetch(`${url}/healthz`).then(
    () => 'still answering',
    () => 'gone',
  )
  t.equal(after, 'gone', 'the server process stopped too')
})
