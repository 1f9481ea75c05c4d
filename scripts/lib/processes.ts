// What the tests, the bench and the conformance run share when they start servers of their own:
// a free loopback port, a bounded wait for a state, and servers ended when this process exits.
import type { ChildProcess } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'

/** A port nothing listens on now: taken, then given back. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface WaitForOptions {
  /** What the check waits for, as the failure names it: "docker ps no longer lists the container". */
  readonly what: string
  readonly timeoutMs?: number
  readonly intervalMs?: number
}

/**
 * Retries `check` until it returns true, for a state that comes a moment after what causes it (a
 * process gone, a container removed, a page rendered). An exception counts as "not yet". Bounded:
 * rejects after `timeoutMs` (30 s unless given: a loaded machine is slow), naming what never happened and what the check last saw, so the test
 * fails. Assert on the state after it as before: the wait only removes the race.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  { what, timeoutMs = 30_000, intervalMs = 50 }: WaitForOptions,
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      if ((await check()) === true) return
      last = undefined
    } catch (error) {
      last = error
    }
    if (performance.now() >= deadline) break
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  const seen =
    last === undefined ? '' : ` (the last check threw: ${last instanceof Error ? last.message : String(last)})`
  throw new Error(`waited ${timeoutMs} ms for ${what}, and it never happened${seen}`)
}

// Servers started and stopped by PID. Should this process end without stopping them (an uncaught
// error, a timeout), these are ended as it exits, rather than left serving.
const servers = new Map<ChildProcess, NodeJS.Signals>()
process.on('exit', () => {
  for (const [child, signal] of servers) child.kill(signal)
})

/** Ends `child` with `signal` if it is still running when this process exits. */
export function endAtExit(child: ChildProcess, signal: NodeJS.Signals): void {
  servers.set(child, signal)
  child.once('exit', () => servers.delete(child))
}

/**
 * [program, args] that run `program` on CPU `core` (taskset, which execs it: the child's PID is the
 * program's), or as they are when no core is given.
 */
export function onCore(core: number | undefined, program: string, args: readonly string[]): [string, string[]] {
  return core === undefined ? [program, [...args]] : ['taskset', ['-c', String(core), program, ...args]]
}
