// npm run build: TypeScript to dist/, compiled aside and renamed into place file by file, so that
// an import or an `npm pack` reading dist/ meanwhile sees every file whole (the server's tests
// pack this package while others build it).
import { spawnSync } from 'node:child_process'
import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
const dist = join(here, 'dist')
const aside = join(here, `dist.build-${process.pid}`)
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

try {
  const { status } = spawnSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json'), '--outDir', aside], {
    stdio: 'inherit',
  })
  if (status !== 0) throw new Error(`build: tsc exited with ${status}`)
  const entries = await readdir(aside, { recursive: true, withFileTypes: true })
  for (const entry of entries.filter((entry) => entry.isFile())) {
    const file = relative(aside, join(entry.parentPath, entry.name))
    await mkdir(dirname(join(dist, file)), { recursive: true })
    await rename(join(aside, file), join(dist, file))
  }
} finally {
  await rm(aside, { recursive: true, force: true })
}
