// The load generators: wrk for HTTP/1.1 (plain or over TLS) and h2load for HTTP/2 (Debian's
// packages wrk and nghttp2-client), C programs that hold the server's pace from one core where a
// load generator in Node would itself be the bottleneck. Each runs on its own core (taskset),
// against 127.0.0.1 only, for a bounded time, and reports latency at microsecond resolution.
// Neither checks the server's certificate (neither can): they only measure, the bench's own
// requests verify it.
import { execFile } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { onCore } from '../scripts/lib/processes.js'

const run = promisify(execFile)

export interface LoadRequest {
  readonly url: string
  readonly method: 'GET' | 'POST'
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  readonly connections: number
  readonly seconds: number
  /** Spreads the requests over this many namespaces (x-sandbox-namespace), each the next; else one. */
  readonly namespaces?: { readonly count: number; readonly prefix: string }
}

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Answers that were not 2xx, and socket errors: any is a failed run. */
  readonly errors: number
  /** The errors by kind ("503", "5xx", "socket timeout"), for the log to say what failed. */
  readonly failures: Readonly<Record<string, number>>
  readonly requests: number
}

export interface LoadGenerator {
  readonly name: string
  run(request: LoadRequest): Promise<LoadResult>
}

/** A load generator for each protocol: the URL's scheme says whether over TLS. */
export interface LoadGenerators {
  readonly 'HTTP/1.1': LoadGenerator
  readonly 'HTTP/2': LoadGenerator
}

/** wrk and h2load, run on `core` when given; one clear line when either is not installed. */
export async function findLoadGenerators(workDir: string, core: number | undefined): Promise<LoadGenerators> {
  for (const program of ['wrk', 'h2load'])
    if (!(await commandExists(program)))
      throw new Error('the bench needs wrk and h2load: apt-get install wrk nghttp2-client')
  return { 'HTTP/1.1': wrk(workDir, core), 'HTTP/2': h2load(workDir, core) }
}

function wrk(workDir: string, core: number | undefined): LoadGenerator {
  return {
    name: 'wrk',
    async run(request) {
      const script = join(workDir, 'request.lua')
      // One Lua script per run: method, headers and body, nothing random; the namespaces in turn.
      const lua = [
        `wrk.method = ${JSON.stringify(request.method)}`,
        ...Object.entries(request.headers).map(
          ([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`,
        ),
        request.body === undefined ? '' : `wrk.body = ${JSON.stringify(request.body)}`,
        // Each status that is not 2xx, counted by the thread and printed at the end (parseWrk).
        'failed = {}',
        'local threads = {}',
        'function setup(thread) table.insert(threads, thread) end',
        'function response(status, headers, body) if status >= 300 then failed[status] = (failed[status] or 0) + 1 end end',
        'function done() for _, thread in ipairs(threads) do for status, n in pairs(thread:get("failed")) do',
        '  io.write(string.format("status %d: %d\\n", status, n)) end end end',
        ...(request.namespaces === undefined
          ? []
          : [
              'local sent = 0',
              'function request()',
              '  sent = sent + 1',
              `  wrk.headers["x-sandbox-namespace"] = ${JSON.stringify(request.namespaces.prefix)} .. (sent % ${request.namespaces.count})`,
              '  return wrk.format()',
              'end',
            ]),
      ].join('\n')
      await writeFile(script, lua)
      const args = ['-t1', `-c${request.connections}`, `-d${request.seconds}s`, '--latency', '--timeout', '5s']
      const { stdout } = await run(...onCore(core, 'wrk', [...args, '-s', script, request.url]), {
        timeout: (request.seconds + 15) * 1000,
      })
      return parseWrk(stdout)
    },
  }
}

/** h2load, one stream at a time on each connection as wrk sends one request at a time on each. */
function h2load(workDir: string, core: number | undefined): LoadGenerator {
  return {
    name: 'h2load',
    async run(request) {
      if (request.method !== 'GET' || request.namespaces !== undefined)
        throw new Error('the bench sends h2load GETs in one namespace only')
      // Per request: start time, status, microseconds to the end of the answer; the percentiles come from it.
      const log = join(workDir, 'h2load.tsv')
      // h2load leaves the file alone when nothing was answered: none of the previous run's lines may count.
      await rm(log, { force: true })
      const headers = Object.entries(request.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
      const args = ['-t1', `-c${request.connections}`, '-m1', `-D${request.seconds}`, ...headers, '--log-file', log]
      const { stdout } = await run(...onCore(core, 'h2load', [...args, request.url]), {
        timeout: (request.seconds + 15) * 1000,
      })
      return parseH2load(stdout, await readFile(log, 'utf8'))
    },
  }
}

export async function commandExists(command: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${command}`])
    return true
  } catch {
    return false
  }
}

/** Reads h2load's summary and its --log-file, refusing a run that did not speak HTTP/2. */
function parseH2load(text: string, log: string): LoadResult {
  // Over TLS it names what ALPN chose; over plain HTTP it speaks h2c.
  const protocol = /^Application protocol: (\S+)/m.exec(text)?.[1]
  if (protocol !== 'h2' && protocol !== 'h2c') throw new Error(`h2load did not speak HTTP/2:\n${text}`)
  const rps = /^finished in [\d.]+m?s, ([\d.]+) req\/s/m.exec(text)
  const counts =
    /^requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/m.exec(
      text,
    )
  // h2load counts a 3xx as a success; the bench, as with wrk, does not.
  const statuses = /^status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/m.exec(text)
  if (!rps || !counts || !statuses) throw new Error(`unexpected h2load output:\n${text}`)
  const micros = log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => Number(line.split('\t')[2]))
    .sort((a, b) => a - b)
  if (micros.length === 0) throw new Error(`h2load logged no request:\n${text}`)
  const percentile = (p: number): number =>
    (micros[Math.min(micros.length - 1, Math.floor((p / 100) * micros.length))] ?? NaN) / 1000
  const [done, failed, errored, timedOut] = counts.slice(1).map(Number) as [number, number, number, number]
  const [redirects, clientErrors, serverErrors] = statuses.slice(1).map(Number) as [number, number, number]
  const failures = nonZero({
    '3xx': redirects,
    '4xx': clientErrors,
    '5xx': serverErrors,
    'stream errored': errored,
    'stream timeout': timedOut,
  })
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    // h2load's failed are the 4xx and 5xx answers.
    errors: failed + errored + timedOut + redirects,
    failures,
    requests: done,
  }
}

/** Reads wrk --latency output. */
function parseWrk(text: string): LoadResult {
  const percentile = (p: string): number => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(text)
    if (!match) throw new Error(`wrk output has no ${p}% latency:\n${text}`)
    const value = Number(match[1])
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
  }
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text)
  const total = /^\s+(\d+) requests in/m.exec(text)
  if (!rps || !total) throw new Error(`unexpected wrk output:\n${text}`)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  const statuses = [...text.matchAll(/^status (\d+): (\d+)$/gm)].map(([, status, n]) => [status, Number(n)])
  const failures = nonZero({
    ...Object.fromEntries(statuses),
    ...Object.fromEntries(
      ['connect', 'read', 'write', 'timeout'].map((kind, i) => [`socket ${kind}`, Number(socket?.[i + 1] ?? 0)]),
    ),
  })
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    errors: non2xx + socketErrors,
    failures,
    requests: Number(total[1]),
  }
}

function nonZero(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))
}
