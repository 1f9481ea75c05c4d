// `npm run conformance` as a child process, for the tests of its command line.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from './sandbox.js'

export interface ConformanceRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs conformance/cli.ts with `env` over this process's (SANDBOX_URL only when given) and `args`; bounded. */
export function runConformanceCli(env: Record<string, string>, args: readonly string[] = []): Promise<ConformanceRun> {
  return new Promise((resolve) => {
    const childEnv = { ...process.env, ...env }
    if (!('SANDBOX_URL' in env)) delete childEnv['SANDBOX_URL']
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'conformance/cli.ts'), ...args],
      { cwd: ROOT, env: childEnv, timeout: 180_000 },
      (error, stdout, stderr) => {
        resolve({ code: typeof error?.code === 'number' ? error.code : error ? -1 : 0, stdout, stderr })
      },
    )
  })
}
