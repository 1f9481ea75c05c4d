// `npm start` builds only what is missing or out of date, then runs the command in the same
// process: on a built checkout it costs npm's own start-up and a few stat calls, no build.
import { execFile } from 'node:child_process'
import { stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from '../support/sandbox.js'

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
