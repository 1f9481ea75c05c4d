// HAProxy from Debian's package in front of sandbox replicas, as a deployment puts a load balancer:
// round robin, readiness checks on GET /readyz, and a header that names the server that answered.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { endAtExit, freePort, onCore, waitFor } from './processes.js'

/** Debian puts it in /usr/sbin, which a user's PATH may lack. */
export const HAPROXY = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy'

/** The response header HAProxy adds: the name of the server that answered (see `servedBy`). */
export const SERVED_BY = 'x-served-by'

const STOP_TIMEOUT_MS = 10_000

export interface Haproxy {
  /** http://127.0.0.1:<port>, the balancer's own address. */
  readonly url: string
  readonly pid: number
  /** Which of the backends answered `response`, or undefined when HAProxy answered itself (a 502, a 503). */
  servedBy(response: Response): string | undefined
  /** Everything HAProxy printed (its warnings: a server going down or up). */
  output(): string
  /** Ends it (SIGTERM, by PID) and removes its folder. */
  stop(): Promise<void>
}

/**
 * The configuration: a second to connect, thirty for an answer, four for a check (longer than the
 * bound of the replica's own /readyz answer, 3 s: a busy replica says itself whether it is ready,
 * and only one that cannot answer at all, paused or starved, is taken out), and retries of a
 * failed connection alone (HAProxy's default retry-on, said outright): such a request reached no
 * server, so it may go to another, the last try to another server (redispatch). A request that
 * reached a server is never sent again, whatever happened to it: a replayed POST would make a second pet.
 */
function config(port: number, servers: ReadonlyMap<string, string>, balance: Balance): string {
  const lines = [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout check 4s',
    '  retries 2',
    '  retry-on conn-failure',
    '  option redispatch',
    'frontend sandbox',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    `  balance ${balance === 'namespace' ? `hdr(${NAMESPACE_HEADER})` : 'roundrobin'}`,
    '  option httpchk',
    '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost',
    '  http-check expect status 200',
    // Down after two failed checks, up after two good ones, a check every 300 ms: a test sees it soon.
    '  default-server check inter 300ms fall 2 rise 2',
    `  http-response set-header ${SERVED_BY} %s`,
    ...[...servers].map(([name, backend]) => `  server ${name} ${new URL(backend).host}`),
  ]
  return `${lines.join('\n')}\n`
}

/**
 * How requests are spread: in turn, or each namespace (its header's hash) to one replica while it
 * is up, which then finds the namespace as it left it rather than catching up with another's writes.
 */
export type Balance = 'roundrobin' | 'namespace'

const NAMESPACE_HEADER = 'x-sandbox-namespace'

/**
 * Starts HAProxy in the foreground in front of `backends` (http://127.0.0.1:<port> URLs), on CPU
 * `core` when given, and waits (bounded) until it accepts connections. Call `stop()` when done.
 */
export async function startHaproxy(
  backends: readonly string[],
  { core, balance = 'roundrobin' }: { core?: number; balance?: Balance } = {},
): Promise<Haproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-haproxy-'))
  const servers = new Map(backends.map((backend, i) => [`replica${i + 1}`, backend]))
  const port = await freePort()
  const file = join(dir, 'haproxy.cfg')
  await writeFile(file, config(port, servers, balance))

  const child = spawn(...onCore(core, HAPROXY, ['-db', '-f', file]), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  endAtExit(child, 'SIGTERM')
  let output = ''
  const gather = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-16_000))
  child.stdout.on('data', gather)
  child.stderr.on('data', gather)
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null

  const stop = async (): Promise<void> => {
    if (!gone()) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    }
    await rm(dir, { recursive: true, force: true })
  }

  const accepts = (): Promise<boolean> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', reject)
    })
  try {
    await waitFor(async () => gone() || (await accepts()), { what: `HAProxy to accept connections on port ${port}` })
    if (gone()) throw new Error(`exited (${String(await exited)})`)
  } catch (error) {
    await stop()
    throw new Error(`HAProxy did not start: ${(error as Error).message}\n${output}`, { cause: error })
  }

  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid as number,
    servedBy: (response) => servers.get(response.headers.get(SERVED_BY) ?? ''),
    output: () => output,
    stop,
  }
}
