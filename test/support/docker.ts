// Docker for the container tests: the engine's reachability (skip or, under REQUIRE_DOCKER=1,
// fail), the image built from this checkout, and containers removed when a test ends.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { ROOT, freePort, waitFor } from './sandbox.js'
import { findProgram, mustRun, runProgram } from './system-programs.js'

/** Debian's client has what the build needs (BuildKit); another docker on PATH may not. */
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker'
export const IMAGE = process.env['ANIMAL_STORE_IMAGE'] ?? 'animal-store-sandbox:local'
export const REQUIRE_DOCKER = process.env['REQUIRE_DOCKER'] === '1'

// The Ryuk reaper image cannot be pulled without a registry; every test stops what it starts.
process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true'

const run = promisify(execFile)

/** Runs the docker client; rejects with its stderr when it exits non-zero. */
export async function docker(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run(DOCKER, args, {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, DOCKER_BUILDKIT: '1' },
    })
    return stdout.trim()
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string }
    throw new Error(`docker ${args.join(' ')} failed: ${stderr?.trim() || message}`, { cause: error })
  }
}

/**
 * Why the Docker tests cannot run here, or undefined when an engine answers. Under REQUIRE_DOCKER=1
 * a missing engine fails the calling test instead of skipping it.
 */
export async function dockerSkipReason(t: Test): Promise<string | undefined> {
  let reason: string | undefined
  try {
    await run(DOCKER, ['version', '--format', '{{.Server.Version}}'], { timeout: 15_000 })
  } catch (error) {
    reason = `no Docker engine is reachable (${DOCKER} version: ${((error as { stderr?: string }).stderr || String(error)).trim().split('\n')[0]})`
  }
  if (reason !== undefined && REQUIRE_DOCKER) {
    t.fail(`REQUIRE_DOCKER=1 but ${reason}`)
  }
  return reason
}

/** Runs a build script of scripts/ with DOCKER set; rejects with the end of its output unless it exits 0. */
async function buildScript(script: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  await mustRun('bash', [join(ROOT, 'scripts', script), ...args], ROOT, { ...env, DOCKER }, 15 * 60_000)
}

let built: Promise<void> | undefined

/** Builds the image from this checkout with `npm run image` (quick when Docker's cache holds it). */
export function ensureImage(): Promise<void> {
  built ??= buildScript('build-image.sh', ['--quiet'], { IMAGE })
  return built
}

/** The registry-free stand-ins for the official images deploy/compose.yaml names. */
export const LOCAL_IMAGES = { postgres: 'animal-store-postgres:local', haproxy: 'animal-store-haproxy:local' }
let localBuilt: Promise<void> | undefined

/** Builds LOCAL_IMAGES with scripts/build-local-images.sh, unless both are there (.ci/run builds them). */
export function ensureLocalImages(): Promise<void> {
  localBuilt ??= docker('image', 'inspect', LOCAL_IMAGES.postgres, LOCAL_IMAGES.haproxy).then(
    () => undefined,
    () => buildScript('build-local-images.sh', [LOCAL_IMAGES.postgres, LOCAL_IMAGES.haproxy]),
  )
  return localBuilt
}

/** How Compose is run here: `docker compose` (the plugin), else `docker-compose`; undefined without either. */
export async function composeCommand(): Promise<string[] | undefined> {
  if (findProgram('docker') && (await runProgram('docker', ['compose', 'version'], ROOT, {}, 60_000)).code === 0) {
    return ['docker', 'compose']
  }
  return findProgram('docker-compose') ? ['docker-compose'] : undefined
}

interface RunningContainer {
  readonly id: string
  /** http://127.0.0.1:<mapped port> */
  readonly origin: string
}

/**
 * `docker run -d` of the image, removed when the test ends: its port published on a random port of
 * 127.0.0.1, or with `hostNetwork` on the host's network, listening on a free port of 127.0.0.1, so
 * that it reaches a server the test started on loopback (a PostgreSQL).
 */
export async function runContainer(
  t: Test,
  options: {
    env?: Record<string, string>
    volume?: string
    image?: string
    args?: string[]
    hostNetwork?: boolean
  } = {},
): Promise<RunningContainer> {
  const hostPort = options.hostNetwork ? await freePort() : undefined
  const env = hostPort ? { ...options.env, HOST: '127.0.0.1', PORT: String(hostPort) } : options.env
  const id = await docker(
    'run',
    '-d',
    ...(hostPort ? ['--network', 'host'] : ['-p', '127.0.0.1::4010']),
    ...Object.entries(env ?? {}).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
    ...(options.volume ? ['-v', `${options.volume}:/data`] : []),
    ...(options.args ?? []),
    options.image ?? IMAGE,
  )
  t.teardown(() => docker('rm', '-f', '-v', id).catch(() => undefined))
  const port = hostPort ?? (await docker('port', id, '4010/tcp')).split('\n')[0]?.split(':').pop()
  const origin = `http://127.0.0.1:${port}`
  await waitForHttp(`${origin}/healthz`, id)
  return { id, origin }
}

/** Polls url until it answers 200 (bounded: 30 s); the failure shows the container's logs. */
async function waitForHttp(url: string, containerId: string): Promise<void> {
  const answers = async (): Promise<boolean> => {
    // A timer of our own, not AbortSignal.timeout: its timer is unref'd, and while Docker's proxy
    // holds a connection that the container does not answer yet, nothing else keeps the process
    // alive, so it would exit in the middle of the wait.
    const abort = new AbortController()
    const timer = setTimeout(() => abort.abort(), 1000)
    try {
      return (await fetch(url, { signal: abort.signal })).status === 200
    } finally {
      clearTimeout(timer)
    }
  }
  await waitFor(answers, { what: `${url} to answer 200` }).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await docker('logs', containerId).catch(() => '')}`)
  })
}

/** The fenced code blocks in `language` from README.md's "Use it in your tests" section. */
export function usageSnippets(language: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = /^## Use it in your tests\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? ''
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)]
    .filter((match) => match[1] === language)
    .map((match) => match[2] ?? '')
}
