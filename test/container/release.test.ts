// The release recipe's dry run (scripts/release.sh --dry-run), as CI runs it: the image built for
// linux/amd64 and linux/arm64, both npm packages packed by `npm publish --dry-run`, the images saved
// to a tarball, loaded into a clean engine of the script's own and started there, the arm64 one
// under qemu-user-static. The test checks what the run leaves behind on its own: the tarball's
// images and their architectures, the probes' report, no engine left.
// Skips without Docker, qemu-user-static or root (the clean engine is a dockerd); fails instead
// under REQUIRE_DOCKER=1 / REQUIRE_PROGRAMS=1.
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { DOCKER, REQUIRE_DOCKER, docker, dockerSkipReason } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { skipWithout } from '../support/system-programs.js'

const RELEASE = join(ROOT, 'scripts/release.sh')
const RUN_TIMEOUT_MS = 20 * 60_000
const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }

/** Runs release.sh in its own process group, stopped whole (TERM, then KILL) past `timeoutMs`; never rejects. */
function release(
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [RELEASE, ...args], {
      cwd: ROOT,
      env: { ...process.env, DOCKER, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const stop = (signal: NodeJS.Signals): void => {
      output += `\n[${signal} after ${timeoutMs} ms]`
      process.kill(-(child.pid ?? 0), signal)
    }
    // TERM first: the script's exit trap stops the engine it started and unmounts what it left.
    const term = setTimeout(() => stop('SIGTERM'), timeoutMs)
    const kill = setTimeout(() => stop('SIGKILL'), timeoutMs + 30_000)
    child.once('close', (code, signal) => {
      clearTimeout(term)
      clearTimeout(kill)
      resolve({ code: code ?? signal ?? -1, output })
    })
  })
}

/** The command lines of every process, to see that none of the clean engine's is left. */
async function commandLines(): Promise<string[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name))
  const lines = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')))
  return lines.map((line) => line.replaceAll('\0', ' '))
}

t.setTimeout(RUN_TIMEOUT_MS + 2 * 60_000)

t.test('a bad invocation stops before any work, naming what is wrong', async (t) => {
  const unknown = await release(['--publish-everything'], 30_000)
  t.equal(unknown.code, 2)
  t.match(unknown.output, 'unknown argument --publish-everything')

  // A real release needs a registry to push to: without REGISTRY it stops at once and says so.
  const noRegistry = await release([], 30_000, { REGISTRY: '' })
  t.equal(noRegistry.code, 1)
  t.match(noRegistry.output, /REGISTRY .* names where the image is pushed/)
  t.notMatch(noRegistry.output, 'building', 'nothing was built')
})

const dockerSkip = (await dockerSkipReason(t)) ?? false
const qemuSkip = dockerSkip ? false : skipWithout(t, 'qemu-aarch64-static', 'qemu-user-static')
let rootSkip: string | false = false
if (!dockerSkip && process.getuid?.() !== 0) {
  rootSkip = 'the dry run starts a Docker engine of its own (dockerd), which needs root'
  if (REQUIRE_DOCKER) t.fail(`REQUIRE_DOCKER=1 but ${rootSkip}`)
}
const skip = dockerSkip || qemuSkip || rootSkip
if (skip) t.comment(`skipping the release dry run: ${skip}`)

t.test('release.sh --dry-run proves both architectures and both packages', { skip }, async (t) => {
  const out = await tempDir(t)
  const hadDocker0 = existsSync('/sys/class/net/docker0')
  const started = performance.now()
  const run = await release(['--dry-run', '--out', out], RUN_TIMEOUT_MS)
  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  t.comment(`release.sh --dry-run took ${seconds} s`)
  t.equal(run.code, 0, 'the dry run succeeds', { output: run.output.slice(-4000) })
  t.match(run.output, 'dry run complete: nothing was pushed or published')
  // The run checks what each npm package holds at its version itself (its check_package).

  // The tarball holds the per-arch tags, each image's config naming its architecture.
  const tarball = join(out, 'images.tar')
  const fromTar = async (member: string): Promise<string> =>
    (await promisify(execFile)('tar', ['-xOf', tarball, member], { maxBuffer: 16 * 1024 * 1024 })).stdout
  const manifest = JSON.parse(await fromTar('manifest.json')) as { Config: string; RepoTags: string[] }[]
  for (const arch of ['amd64', 'arm64']) {
    const tag = `animal-store-sandbox:${version}-${arch}`
    const entry = manifest.find((image) => image.RepoTags.includes(tag))
    if (!entry) {
      t.fail(`${tag} is in images.tar`)
      continue
    }
    t.matchStrict(JSON.parse(await fromTar(entry.Config)), { os: 'linux', architecture: arch }, `${tag} in the tarball`)
    t.equal(await docker('image', 'inspect', '--format', '{{.Architecture}}', tag), arch, `${tag} in the engine`)
  }

  // Each image started in the clean engine: its Node reports its architecture, it holds no native
  // addon, it became healthy and listed the same seeded pets with the key.
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'))
  const image = (arch: string, processArch: string) => ({ arch, architecture: arch, processArch, pets: 5 })
  t.matchStrict(report, { version, images: [image('amd64', 'x64'), image('arm64', 'arm64')] })
  for (const { arch, sizeBytes, healthySeconds, addons } of report.images) {
    t.same(addons, [], `linux/${arch} holds no native addon`)
    t.ok(healthySeconds > 0 && healthySeconds < 90, `linux/${arch} healthy within the bound`)
    t.comment(`linux/${arch}: ${(sizeBytes / 1e6).toFixed(1)} MB, healthy ${healthySeconds} s after docker run`)
  }
  t.equal(
    new Set(report.images.map(({ petsSha256 }: { petsSha256: string }) => petsSha256)).size,
    1,
    'one seed, the same pets on both',
  )

  // The other languages' modules as their registries would take them.
  t.same(
    (await readdir(join(out, 'python'))).sort(),
    [`animal_store_testcontainers-${version}-py3-none-any.whl`, `animal_store_testcontainers-${version}.tar.gz`],
    'the Python wheel and sdist, at the version',
  )
  t.same(
    (await readdir(join(out, 'java'))).sort(),
    ['', '-javadoc', '-sources']
      .map((kind) => `animal-store-testcontainers-${version}${kind}.jar`)
      .concat('pom.xml')
      .sort(),
    'the Java jars Maven Central takes, and the pom',
  )
  t.match(run.output, 'go mod verify of modules/go', 'the Go module is verified')

  // The clean engine is gone (no process, no mount, no folder), and it left the machine's network
  // alone: a dockerd without a bridge deletes any docker0 it can see, the machine engine's bridge.
  t.equal(existsSync('/sys/class/net/docker0'), hadDocker0, "the machine engine's docker0 is as it was")
  const engineDir = /starting a clean engine in (\S+)/.exec(run.output)?.[1]
  t.ok(engineDir, 'the run names its engine folder')
  if (engineDir) {
    t.notOk(existsSync(engineDir), 'its folder is removed')
    t.notOk((await readFile('/proc/mounts', 'utf8')).includes(engineDir), 'nothing of it stays mounted')
    t.notOk(
      (await commandLines()).some((line) => line.includes(engineDir)),
      'no process of it is left',
    )
  }
})
