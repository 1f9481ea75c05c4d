// `npm start`: builds dist/ when it is missing or older than what it is built from (the build of
// `npm run build`), then runs the command in this same process. On a built checkout the check is a
// few milliseconds of stat calls, so `npm start` costs npm's own start-up and nothing more.
// Plain JavaScript, not TypeScript: loading tsx for the check would cost more than the check.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { URL, fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
// Written by scripts/build.ts after everything else: the build's time.
const stamp = join(root, 'dist', '.built')
// What the build reads (see scripts/build.ts and the Dockerfile).
const inputs = [
  'src',
  'spec',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.ts',
  'scripts/compile-spec.ts',
  'scripts/bundle-cli.ts',
]

/** The newest modification time under `path` (a folder's own time changes when a file is removed). */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((time, name) => Math.max(time, newest(join(path, name))), stat.mtimeMs)
}

const builtAt = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? -1
const stale = inputs.find((input) => newest(join(root, input)) > builtAt)
if (stale !== undefined) {
  process.stderr.write(
    builtAt < 0
      ? 'npm start: building dist/ (first start)\n'
      : `npm start: rebuilding dist/ (${stale} changed since the last build)\n`,
  )
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (status !== 0) process.exit(status ?? 1)
}
await import(pathToFileURL(join(root, 'dist', 'cli.js')).href)
