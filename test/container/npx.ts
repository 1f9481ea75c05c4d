// The installed command as a team runs it: `npx animal-store-sandbox` in a project's folder. npx
// runs the bin through `sh -c`, which passes no signal on to node, so the command runs in a process
// group of its own, signalled whole as Ctrl-C in a terminal does, and killed when the test ends.
import { spawn } from 'node:child_process'
import type { Test } from 'tap'
import { waitFor, waitForBanner } from '../support/sandbox.js'
import { CLEAN_ENV } from '../support/system-programs.js'

export interface NpxSandbox {
  readonly apiUrl: string
  readonly banner: string
  /** The exit code, or the signal's name. */
  readonly exited: Promise<number | string>
  /** Sends `signal` to the group; once it exits, waits (bounded) until nothing answers at the API's URL. */
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

/** Starts the command installed in `cwd` with `args`, in memory and silent, and waits for its banner. */
export async function startWithNpx(
  t: Test,
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<NpxSandbox> {
  const command = ['--no-install', 'animal-store-sandbox', '--in-memory', '--log-level', 'silent', ...args]
  const child = spawn('npx', command, {
    cwd,
    env: { ...CLEAN_ENV, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  })
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  )
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return // never started: there is no group, and -0 would be ours
    try {
      process.kill(-child.pid, signal)
    } catch {
      // the group is gone already
    }
  }
  t.teardown(() => signalGroup('SIGKILL'))
  const { apiUrl, banner } = await waitForBanner(child, exited)
  // npx may end before the node process under it has closed its port.
  const refused = () =>
    fetch(apiUrl).then(
      (res) => res.arrayBuffer().then(() => false),
      () => true,
    )
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    signalGroup(signal)
    const code = await exited
    await waitFor(refused, { what: 'the sandbox under npx to stop listening' })
    return code
  }
  return { apiUrl, banner, exited, stop }
}
