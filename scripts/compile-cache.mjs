// Fills Node's compile cache for the image (the Dockerfile's `compile-cache` stage): starts the
// sandbox once as the image starts it, waits for /healthz, runs the HEALTHCHECK's script, stops it.
// Node then writes the V8 code of every module those loaded, and a container's first start reads
// it instead of parsing and compiling them (NODE_COMPILE_CACHE in the runtime stage).
//
//   TARGETARCH=amd64 node scripts/compile-cache.mjs CACHE_DIR
//
// Node files its cache under <node version>-<arch>-<V8 version, flags and CPU features>-<uid>, so
// the start runs as the image's user (uid 1000). When the image is for another architecture than
// this build's, the folder stays empty: no cache rather than one that is never read. The cache is
// left read-only: a container never rewrites it, and another uid, or other CPU features than the
// builder's, only miss it (Node then compiles as without one, silently).
// Plain JavaScript: the stage that runs it has only the production dependencies.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, mkdirSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import process from 'node:process'
import { setTimeout as sleep } from 'node:timers/promises'

const cacheDir = process.argv[2]
// The Dockerfile's ARG TARGETARCH, which a RUN step sees in its environment.
const targetArch = process.env.TARGETARCH
if (!cacheDir || !targetArch) throw new Error('usage: TARGETARCH=amd64|arm64 node scripts/compile-cache.mjs CACHE_DIR')
const USER = { uid: 1000, gid: 1000 }
const DEADLINE_MS = 30_000
// Docker's names of architectures, as Node's process.arch says them.
const NODE_ARCH = { amd64: 'x64', arm64: 'arm64' }

mkdirSync(cacheDir, { recursive: true })
if (NODE_ARCH[targetArch] !== process.arch) {
  console.error(`compile cache: left empty, the image is for ${targetArch} and this build runs on ${process.arch}`)
  process.exit(0)
}
chownSync(cacheDir, USER.uid, USER.gid)

const port = await new Promise((resolve, reject) => {
  const server = createServer().once('error', reject)
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address()
    server.close(() => resolve(port))
  })
})
// The runtime stage's settings, in memory: nothing but the cache is written.
const env = {
  ...process.env,
  NODE_COMPILE_CACHE: cacheDir,
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: String(port),
  DATA_FILE: ':memory:',
  LOG_LEVEL: 'warn',
}
const sandbox = spawn(process.execPath, ['dist/cli.js'], { env, ...USER, stdio: ['ignore', 'ignore', 'pipe'] })
// Its banner is kept for a failure's message, not printed in every build's log.
let output = ''
sandbox.stderr.on('data', (chunk) => (output += chunk))
const exited = new Promise((resolve) => sandbox.once('exit', (code, signal) => resolve(signal ?? code)))
const started = Date.now()
for (;;) {
  const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
    (response) => response.status,
    () => 0,
  )
  if (status === 200) break
  if (sandbox.exitCode !== null || Date.now() - started > DEADLINE_MS) {
    sandbox.kill('SIGKILL')
    throw new Error(`compile cache: the sandbox did not answer 200 on /healthz (exit: ${await exited})\n${output}`)
  }
  await sleep(20)
}
const check = spawnSync(process.execPath, ['dist/healthcheck.js'], { env, ...USER, timeout: DEADLINE_MS })
sandbox.kill('SIGTERM')
const exit = await exited
if (check.status !== 0 || exit !== 0)
  throw new Error(`compile cache: healthcheck exited with ${check.status}, the sandbox with ${exit}\n${output}`)

// Read-only, owned by root: Node reads it as any user and never rewrites it.
let files = 0
for (const entry of readdirSync(cacheDir, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name)
  chownSync(path, 0, 0)
  chmodSync(path, entry.isDirectory() ? 0o555 : 0o444)
  if (entry.isFile()) files++
}
chownSync(cacheDir, 0, 0)
chmodSync(cacheDir, 0o555)
console.error(`compile cache: ${files} modules compiled into ${cacheDir}`)
