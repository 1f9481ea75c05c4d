// What the tests, the bench and the conformance run share when they start servers of their own:
// a free loopback port, a bounded wait for a state, and servers ended when this process exits.
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'

/**
 * The ports the kernel gives outgoing connections and `listen(0)` (Linux's ip_local_port_range):
 * a port found free there can be taken by any client's connection before the server binds it.
 */
const EPHEMERAL_FROM = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]) || 32_768
  } catch {
    return 32_768
  }
})()
const LOWEST = 10_000

/** Whether `port` can be listened on at 127.0.0.1 now; given back at once. */
function bindable(port: number): Promise<number | undefined> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined))
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo
      server.close(() => resolve(bound))
    })
  })
}

/**
 * A port nothing listens on now: taken, then given back. Drawn below the ephemeral range, so that
 * no connection another process opens meanwhile takes it before the server this is for binds it.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50 && EPHEMERAL_FROM > LOWEST; tries++) {
    const port = await bindable(LOWEST + Math.floor(Math.random() * (EPHEMERAL_FROM - LOWEST)))
    if (port !== undefined) return port
  }
  const port = await bindable(0)
  if (port === undefined) throw new Error('no free port on 127.0.0.1')
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
