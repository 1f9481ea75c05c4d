// The command (src/cli.ts under tsx) as a child process, for the replay and shrink tests.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ROOT } from '../support/sandbox.js'

export interface CliRun {
  readonly child: ChildProcess
  stdout: string
  stderr: string
  /** The exit code (or the signal's name) once the process has closed. */
  readonly exited: Promise<number | string>
}

/** Starts `animal-store-sandbox <args>`; killed when the test ends if it still runs. */
export function startCli(t: Test, args: string[], env: Record<string, string> = {}): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1)),
  )
  const run: CliRun = { child, stdout: '', stderr: '', exited }
  child.stdout?.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return run
}

/** Runs it to its end: its exit code and output. */
export async function runCli(
  t: Test,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const run = startCli(t, args, env)
  const code = await run.exited
  return { code, stdout: run.stdout, stderr: run.stderr }
}
