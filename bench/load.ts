// The load generator: wrk (Debian's package), a C program that holds the server's pace from one
// core where a load generator in Node would itself be the bottleneck. It runs on its own core
// (taskset), against 127.0.0.1 only, for a bounded time, and reports latency at microsecond resolution.
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

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

/** wrk, run on `core` when given; a clear error when it is not installed. */
export async function findLoadGenerator(workDir: string, core: number | undefined): Promise<LoadGenerator> {
  if (!(await commandExists('wrk'))) throw new Error('the bench needs wrk: apt-get install wrk')
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

export async function commandExists(command: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${command}`])
    return true
  } catch {
    return false
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
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    errors: non2xx + socketErrors,
    requests: Number(total[1]),
  }
}
