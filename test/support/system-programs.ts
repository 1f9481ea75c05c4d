// Programs from the system that some tests need (the Debian packages .ci/run installs). Outside CI
// a test that lacks one skips and says why; under REQUIRE_PROGRAMS=1, which .ci/run sets after
// installing them, the same test fails instead. And programs run as a consumer's project runs them.
import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { ROOT } from './sandbox.js'

export const REQUIRE_PROGRAMS = process.env['REQUIRE_PROGRAMS'] === '1'

/** The absolute path of `program` on PATH, or undefined. */
export function findProgram(program: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v "$1"', 'sh', program], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

/**
 * A tap `skip` value for a test that runs `program`, from Debian's package `from` or from what
 * `from.source` says: false when it is installed. Under REQUIRE_PROGRAMS=1 a missing program fails
 * the calling test right away.
 */
export function skipWithout(t: Test, program: string, from: string | { source: string }): string | false {
  if (findProgram(program) !== undefined) return false
  const reason = `${program} is not installed (${typeof from === 'string' ? `Debian package ${from}` : from.source}; .ci/run installs it)`
  if (REQUIRE_PROGRAMS) {
    t.fail(`REQUIRE_PROGRAMS=1 but ${reason}`)
    return false
  }
  return reason
}

/**
 * A tap `skip` value for a test that needs the browser, given why it cannot run here (`missing`,
 * from scripts/lib/browser.ts): false when it can. Under REQUIRE_BROWSER=1, which .ci/run sets, a
 * missing browser fails `t` instead, and the test is skipped.
 */
export function skipWithoutBrowser(t: Test, missing: string | undefined): string | false {
  if (missing === undefined) return false
  if (process.env['REQUIRE_BROWSER'] !== '1') return `${missing}; REQUIRE_BROWSER=1 makes this a failure`
  t.fail(`REQUIRE_BROWSER=1 but ${missing}`)
  return missing
}

/** The environment without the npm_* settings `npm test` passes down: a consumer's own npm must not see them. */
export const CLEAN_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
)

export interface ProgramRun {
  readonly code: number | string
  readonly stdout: string
  /** stdout and stderr */
  readonly output: string
}

/**
 * Runs a program as a consumer's project would, on CLEAN_ENV with Ryuk off and `env`, in its own
 * process group, killed whole past `timeoutMs`. Never rejects; `mustRun` does, unless it exits 0.
 */
export function runProgram(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  timeoutMs = 10 * 60_000,
): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...CLEAN_ENV, TESTCONTAINERS_RYUK_DISABLED: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let [stdout, output] = ['', '']
    child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), (output += chunk.toString())))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs / 1000} s)`
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    }, timeoutMs)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code: code ?? signal ?? 'unknown', stdout, output })
    })
  })
}

export async function mustRun(...call: Parameters<typeof runProgram>): Promise<ProgramRun> {
  const run = await runProgram(...call)
  if (run.code !== 0)
    throw new Error(`${call[0]} ${call[1].join(' ')} exited with ${run.code}:\n${run.output.slice(-4000)}`)
  return run
}

/** `npm pack` of the package in `dir` into `destination`: the tarball's path and the files it holds. */
export async function npmPack(dir: string, destination: string): Promise<{ tarball: string; files: string[] }> {
  const { stdout } = await mustRun('npm', ['pack', '--json', '--pack-destination', destination], dir)
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  if (!packed) throw new Error(`npm pack in ${dir} reported no tarball`)
  return { tarball: join(destination, packed.filename), files: packed.files.map((file) => file.path) }
}

/** tsc in strict mode on `file`, as a consumer's project compiles it against the packages' own typings. */
export function typecheckAsConsumer(file: string, cwd: string): Promise<ProgramRun> {
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'))
  const options = ['--noEmit', '--strict', '--module', 'nodenext', '--target', 'es2022', '--skipLibCheck']
  const types = ['--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node']
  return runProgram(process.execPath, [tsc, ...options, ...types, file], cwd)
}
