// The servers the bench starts, each its own process, pinned to the server core when asked: the
// sandbox (node dist/cli.js) and the bare node:http ceiling (also in its durable variant, which
// has each create on disk before it answers).
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const API_KEY = 'sandbox-api-key'
export const AUTH = { Authorization: `Bearer ${API_KEY}` }

/** `before` is the sandbox of an earlier commit (npm run bench -- --before <ref>). */
export type ServerName = 'sandbox' | 'before' | 'bare' | 'bareDurable'

export interface ServerSpec {
  readonly name: ServerName
  command(): { file: string; args: string[]; cwd?: string }
}

/** The sandbox of the checkout in `root`; BENCH_FROM_SOURCE runs its src/ through tsx (no build needed). */
export function sandboxAt(root: string, name: 'sandbox' | 'before' = 'sandbox'): ServerSpec {
  return {
    name,
    command: () => ({
      file: process.execPath,
      args: process.env['BENCH_FROM_SOURCE']
        ? ['--import', 'tsx', join(root, 'src/cli.ts')]
        : [join(root, 'dist/cli.js')],
      cwd: root,
    }),
  }
}

export const SERVERS: Record<Exclude<ServerName, 'before'>, ServerSpec> = {
  sandbox: sandboxAt(ROOT),
  bare: {
    name: 'bare',
    command: () => ({ file: process.execPath, args: [join(ROOT, 'bench/bare-server.mjs')] }),
  },
  // The same, appending each create's body to DATA_FILE and fdatasyncing it before the 201.
  bareDurable: {
    name: 'bareDurable',
    command: () => ({ file: process.execPath, args: [join(ROOT, 'bench/bare-server.mjs'), '--durable'] }),
  },
}

export interface Started {
  readonly child: ChildProcess
  readonly origin: string
  /** Spawn → first 200 on GET /v1/pets, in ms. */
  readonly readyMs: number
  stop(): Promise<void>
}

/**
 * A port the system says is free now, for a server that is told its port up front. (A counter of
 * our own could collide with the one of a bench running beside it, each finding the other's server.)
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Spawns a server on the server core and waits (bounded) for its first 200 on GET /v1/pets. */
export async function startServer(
  spec: ServerSpec,
  options: { env?: Record<string, string>; core: number | undefined },
): Promise<Started> {
  const port = await freePort()
  const { file, args, cwd = ROOT } = spec.command()
  const [program, argv] =
    options.core === undefined ? [file, args] : ['taskset', ['-c', String(options.core), file, ...args]]
  const started = performance.now()
  // taskset execs the command, so the child's pid is the server's.
  const child = spawn(program, argv, {
    cwd,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const origin = `http://127.0.0.1:${port}`
  const deadline = started + 30_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${spec.name} exited before it answered:\n${stderr}`)
    if ((await status(`${origin}/v1/pets`)) === 200) break
    if (performance.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${spec.name} did not answer 200 within 30 s:\n${stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  const readyMs = performance.now() - started
  return {
    child,
    origin,
    readyMs,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** The status of one GET on a new connection, or 0 when nothing answers yet. */
export function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers: AUTH, agent: false, timeout: 2000 }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
    })
    req.once('error', () => resolve(0))
    req.once('timeout', () => req.destroy())
    req.end()
  })
}

/** Resident memory of a process, in MiB, from /proc (Linux); NaN when it cannot be read. */
export function rssMiB(pid: number | undefined): number {
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return Math.round((Number(kib ?? NaN) / 1024) * 10) / 10
  } catch {
    return NaN
  }
}
