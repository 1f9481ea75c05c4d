// npm run build: TypeScript to JS, the precompiled specs and the bundled command, into dist/.
// Everything is built aside first, then each file is renamed into place and files no build would
// write any more are removed. A start or `npm pack` reading dist/ meanwhile (tests run `npm start`
// and `npm pack` side by side, each building first) thus sees every file whole, never a dist/
// emptied for a rebuild.
import { spawnSync } from 'node:child_process'
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
const aside = join(root, `dist.build-${process.pid}`)

function run(args: string[]): void {
  const { status } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
  if (status !== 0) throw new Error(`build: node ${args.join(' ')} exited with ${status}`)
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)))
}

try {
  run([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', aside])
  run(['--import', 'tsx', 'scripts/compile-spec.ts', aside])
  run(['--import', 'tsx', 'scripts/bundle-cli.ts', aside])
  // The Testcontainers module and control client (modules/node), which this package carries too;
  // the image builds only the server (--server-only).
  if (!process.argv.includes('--server-only')) run([join(root, 'modules/node/build.mjs')])
  // The stamp that says when this build was made (scripts/start.mjs reads it): renamed last.
  await writeFile(join(aside, '.built'), `${new Date().toISOString()}\n`)
  const built = (await filesUnder(aside)).sort((a, b) => Number(a === '.built') - Number(b === '.built'))
  for (const file of built) {
    await mkdir(dirname(join(dist, file)), { recursive: true })
    await rename(join(aside, file), join(dist, file))
  }
  const current = new Set(built)
  for (const file of await filesUnder(dist)) if (!current.has(file)) await rm(join(dist, file), { force: true })
} finally {
  await rm(aside, { recursive: true, force: true })
}
