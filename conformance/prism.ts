// Prism in proxy mode, a child process on loopback in front of an upstream base URL. It reports what
// does not conform in the sl-violations header, or with --errors as a 500 of its own.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const PRISM_BIN = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js')
const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.cjs', import.meta.url))

export interface PrismOptions {
  /** The OpenAPI document Prism validates against (a path). */
  readonly spec: string
  /** The upstream base URL, e.g. http://127.0.0.1:4010/v1 */
  readonly upstream: string
  /**
   * With --errors Prism answers a response violation with a 500 problem of its own, and answers
   * invalid requests itself (401/422) without forwarding them; without it, every request is
   * forwarded and violations are only listed in the sl-violations header.
   */
  readonly errors: boolean
  /** Prism needs a few seconds to start on a busy machine: generous, but bounded. */
  readonly readyTimeoutMs?: number
}

export interface RunningPrism {
  /** e.g. http://127.0.0.1:43210: Prism serves the spec's paths at its root (no /v1). */
  readonly url: string
  readonly pid: number | undefined
  /** Stops Prism and waits until the process is gone. Safe to call more than once. */
  stop(): Promise<void>
}

export async function startPrism({
  spec,
  upstream,
  errors,
  readyTimeoutMs = 60_000,
}: PrismOptions): Promise<RunningPrism> {
  const args = ['proxy', spec, upstream, '--host', '127.0.0.1', '--port', '0', '--no-cors']
  const child = spawn(
    process.execPath,
    ['--require', EXIT_WITH_PARENT, PRISM_BIN, ...args, ...(errors ? ['--errors'] : [])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  // 'close', not 'exit': by then the last of Prism's output has been read.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
    await exited
    clearTimeout(timer)
  }
  // Should this process end without calling stop(), Prism must not outlive it.
  const onExit = (): void => void child.kill('SIGKILL')
  process.once('exit', onExit)
  let closed = false
  void exited.then(() => {
    closed = true
    process.off('exit', onExit)
  })

  // A bounded poll of its output for the line that says it listens.
  const deadline = performance.now() + readyTimeoutMs
  for (;;) {
    const url = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(output)?.[1]
    if (url) return { url, pid: child.pid, stop }
    const failure = closed
      ? 'exited before it was listening'
      : performance.now() > deadline
        ? `was not listening after ${readyTimeoutMs} ms`
        : undefined
    if (failure) {
      await stop()
      throw new Error(`Prism (pid ${child.pid}) ${failure}:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
