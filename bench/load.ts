// Load generators: wrk (Debian's package) when installed, autocannon otherwise. Either runs on
// its own core (taskset), against 127.0.0.1 only, for a bounded time, and reports latency at
// microsecond resolution.
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createHistogram } from 'node:perf_hooks'
import { promisify } from 'node:util'
import autocannon from 'autocannon'

const run = promisify(execFile)

export interface LoadRequest {
  readonly url: string
  readonly method: 'GET' | 'POST'
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  readonly connections: number
  readonly seconds: number
}

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Answers that were not 2xx, and socket errors: any is a failed run. */
  readonly errors: number
  readonly requests: number
}

export interface LoadGenerator {
  readonly name: string
  run(request: LoadRequest): Promise<LoadResult>
}

export async function findLoadGenerator(options: {
  workDir: string
  core: number | undefined
  preferred?: 'wrk' | 'autocannon'
}): Promise<LoadGenerator> {
  if (options.preferred !== 'autocannon' && (await commandExists('wrk'))) return wrk(options.workDir, options.core)
  return { name: 'autocannon', run: runAutocannon }
}

export async function commandExists(command: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${command}`])
    return true
  } catch {
    return false
  }
}

function wrk(workDir: string, core: number | undefined): LoadGenerator {
  return {
    name: 'wrk',
    async run(request) {
      const script = join(workDir, 'request.lua')
      // One Lua script per run: method, headers and body, nothing random.
      const lua = [
        `wrk.method = ${JSON.stringify(request.method)}`,
        ...Object.entries(request.headers).map(
          ([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`,
        ),
        request.body === undefined ? '' : `wrk.body = ${JSON.stringify(request.body)}`,
        // Count non-2xx answers as errors (wrk only reports non-2xx/3xx).
        'local bad = 0',
        'function response(status, headers, body) if status >= 300 then bad = bad + 1 end end',
      ].join('\n')
      await writeFile(script, lua)
      const args = [
        '-t1',
        `-c${request.connections}`,
        `-d${request.seconds}s`,
        '--latency',
        '--timeout',
        '5s',
        '-s',
        script,
        request.url,
      ]
      const [command, argv] = core === undefined ? ['wrk', args] : ['taskset', ['-c', String(core), 'wrk', ...args]]
      const { stdout } = await run(command, argv, { timeout: (request.seconds + 15) * 1000 })
      return parseWrk(stdout)
    },
  }
}

/** Reads wrk --latency output. */
export function parseWrk(text: string): LoadResult {
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
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    errors: non2xx + socketErrors,
    requests: Number(total[1]),
  }
}

// autocannon's own percentiles come in whole milliseconds (its histogram records integers), so a
// fast server's p50 reads 0. Each answer's time is reported as a fraction of a millisecond on the
// 'response' event: those go into a nanosecond histogram instead (2xx only, as autocannon counts).
async function runAutocannon(request: LoadRequest): Promise<LoadResult> {
  const latencyNs = createHistogram()
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: request.url,
        method: request.method,
        headers: { ...request.headers },
        ...(request.body === undefined ? {} : { body: request.body }),
        connections: request.connections,
        duration: request.seconds,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      if (statusCode >= 200 && statusCode < 300) latencyNs.record(Math.max(1, Math.round(responseTimeMs * 1e6)))
    })
  })
  const percentileMs = (p: number): number => Math.round(latencyNs.percentile(p) / 1e3) / 1e3
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: percentileMs(50),
    p99Ms: percentileMs(99),
    errors: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
  }
}
