// The servers the bench starts, each its own process, pinned to the server core when asked: the
// sandbox (node dist/cli.js) and the bare node:http ceiling (also in its durable variant, which
// has each create on disk before it answers). Each serves plain HTTP, or HTTPS (HTTP/2 and
// HTTP/1.1 on one port) with a certificate from a CA made at its start, which the bench trusts.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { request as secureRequest } from 'node:https'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, onCore } from '../scripts/lib/processes.js'
import { tlsFiles } from '../src/tls/tls.js'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const API_KEY = 'sandbox-api-key'
export const AUTH = { Authorization: `Bearer ${API_KEY}` }

/** `before` is the sandbox of an earlier commit (npm run bench -- --before <ref>). */
export type ServerName = 'sandbox' | 'before' | 'bare' | 'bareDurable'

export interface ServerSpec {
  readonly name: ServerName
  /**
   * How it serves HTTPS: it makes its CA at start (TLS=auto, written to TLS_CA_OUT), or it serves
   * the certificate it is given (TLS_CERT, TLS_KEY); undefined when it cannot (an earlier commit).
   */
  readonly tls: 'auto' | 'given' | undefined
  command(): { file: string; args: string[]; cwd?: string }
}

/** The sandbox of the checkout in `root`; BENCH_FROM_SOURCE runs its src/ through tsx (no build needed). */
export function sandboxAt(root: string, name: 'sandbox' | 'before' = 'sandbox'): ServerSpec {
  return {
    name,
    // The file that makes TLS=auto's CA (in either of its places): a commit without it serves plain HTTP only.
    tls: ['src/tls/tls.ts', 'src/http/tls.ts'].some((file) => existsSync(join(root, file))) ? 'auto' : undefined,
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
    tls: 'given',
    command: () => ({ file: process.execPath, args: [join(ROOT, 'bench/bare-server.mjs')] }),
  },
  // The same, appending each create's body to DATA_FILE and fdatasyncing it before the 201.
  bareDurable: {
    name: 'bareDurable',
    tls: 'given',
    command: () => ({ file: process.execPath, args: [join(ROOT, 'bench/bare-server.mjs'), '--durable'] }),
  },
}

export interface Started {
  readonly child: ChildProcess
  /** http://127.0.0.1:<port>, or https:// when started with `tls`. */
  readonly origin: string
  /** Over HTTPS, the CA (PEM) its certificate is signed by. */
  readonly ca: string | undefined
  /** Spawn → first 200 on GET /v1/pets, in ms. */
  readonly readyMs: number
  stop(): Promise<void>
}

/**
 * What a server is started with to serve HTTPS, its files in `dir`, and the CA to trust once it
 * answers. The bare server's certificate is made as TLS=auto makes the sandbox's.
 */
async function httpsFor(
  spec: ServerSpec,
  dir: string,
): Promise<{ env: Record<string, string>; ca: () => string | undefined }> {
  if (spec.tls === undefined) throw new Error(`${spec.name} does not serve HTTPS (no TLS=auto)`)
  if (spec.tls === 'auto') {
    const caFile = join(dir, 'ca.pem')
    return {
      env: { TLS: 'auto', TLS_CA_OUT: caFile },
      ca: () => (existsSync(caFile) ? readFileSync(caFile, 'utf8') : undefined),
    }
  }
  const made = await tlsFiles({ kind: 'auto', names: [] }, undefined)
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')]
  await writeFile(cert, made.cert)
  await writeFile(key, made.key, { mode: 0o600 })
  return { env: { TLS_CERT: cert, TLS_KEY: key }, ca: () => made.ca }
}

/**
 * Spawns a server on the server core and waits (bounded) for its first 200 on GET /v1/pets;
 * with `tls`, over HTTPS, its certificate files in that folder.
 */
export async function startServer(
  spec: ServerSpec,
  options: { env?: Record<string, string>; core: number | undefined; tls?: { dir: string } },
): Promise<Started> {
  const https = options.tls === undefined ? undefined : await httpsFor(spec, options.tls.dir)
  const port = await freePort()
  const { file, args, cwd = ROOT } = spec.command()
  const [program, argv] = onCore(options.core, file, args)
  const started = performance.now()
  const child = spawn(program, argv, {
    cwd,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ...https?.env,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const origin = `${https ? 'https' : 'http'}://127.0.0.1:${port}`
  const deadline = started + 30_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${spec.name} exited before it answered:\n${stderr}`)
    if ((await status(`${origin}/v1/pets`, https?.ca())) === 200) break
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
    ca: https?.ca(),
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

/** The status of one GET on a new connection (https: trusting `ca` alone), or 0 when nothing answers yet. */
export function status(url: string, ca?: string): Promise<number> {
  return new Promise((resolve) => {
    const options = { headers: AUTH, agent: false, timeout: 2000 }
    const secure = url.startsWith('https:')
    const req = (secure ? secureRequest : request)(url, secure ? { ...options, ca } : options, (res) => {
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

/** Clock ticks per second of /proc/PID/stat's times: USER_HZ, 100 on Linux's common architectures. */
const TICKS_PER_SECOND = 100

/**
 * CPU time (in ms) that a process and its children (a PostgreSQL server's backends) have used so
 * far: the live ones summed over their threads from the scheduler's own count in /proc (Linux;
 * nanoseconds, where the clock ticks of /proc/PID/stat are 10 ms and a short loaded run reads 0),
 * and the children that ended (an idle backend closed mid-run), which the process has reaped into
 * its own counts of children's time. NaN when none can be read.
 */
export function cpuMs(pid: number | undefined): number {
  let ns = NaN
  const add = (more: number): void => void (ns = (Number.isNaN(ns) ? 0 : ns) + more)
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // After the name in parentheses: state, then the parent's pid; the children's user and
      // system time are the 14th and 15th fields from there.
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? []
      if (entry === String(pid)) add(((Number(fields[13]) + Number(fields[14])) * 1e9) / TICKS_PER_SECOND)
      else if (fields[1] !== String(pid)) continue
      for (const task of readdirSync(`/proc/${entry}/task`))
        add(Number(readFileSync(`/proc/${entry}/task/${task}/schedstat`, 'utf8').split(' ')[0]))
    } catch {
      // Ended meanwhile.
    }
  }
  return ns / 1e6
}
