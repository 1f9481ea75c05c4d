// How start() knows the sandbox is ready: a 200 on GET /healthz through the published port, over
// HTTPS trusting only the CA the sandbox made when it makes one (TLS=auto).
// Testcontainers' HTTP wait polls once a second (its interval is its read timeout), while a sandbox
// answers well under a second after its container starts: this one polls every 20 ms. A container
// that exits fails the wait at once, with its last log lines: the sandbox's own message (a refused
// setting, refused fixtures).
import { get } from 'node:http'
import { get as secureGet } from 'node:https'
import { getContainerRuntimeClient, type BoundPorts, type WaitStrategy } from 'testcontainers'
import { caFileOf, fileOfArchive } from './tls.js'

type Container = Parameters<WaitStrategy['waitUntilReady']>[0]

const POLL_MS = 20
/** One check's own limit: a loaded machine may be slow to answer, never this slow. */
const REQUEST_TIMEOUT_MS = 2000
const LAST_LOG_LINES = 50

export class HealthzWaitStrategy implements WaitStrategy {
  readonly #port: number
  #startupTimeoutMs = 60_000
  #startupTimeoutSet = false

  constructor(port: number) {
    this.#port = port
  }

  withStartupTimeout(startupTimeoutMs: number): this {
    this.#startupTimeoutMs = startupTimeoutMs
    this.#startupTimeoutSet = true
    return this
  }

  isStartupTimeoutSet(): boolean {
    return this.#startupTimeoutSet
  }

  getStartupTimeout(): number {
    return this.#startupTimeoutMs
  }

  async waitUntilReady(container: Container, boundPorts: BoundPorts): Promise<void> {
    const client = await getContainerRuntimeClient()
    const caFile = caFileOf(environmentOf((await container.inspect()).Config.Env))
    const origin = `${caFile === undefined ? 'http' : 'https'}://${client.info.containerRuntime.host}`
    const url = `${origin}:${boundPorts.getBinding(this.#port)}/healthz`
    // The CA is read again at each check until one passes: it is written just before the sandbox listens.
    const readCa = (file: string): Promise<string | undefined> =>
      client.container
        .fetchArchive(container, file)
        .then(fileOfArchive)
        .catch(() => undefined)
    const deadline = Date.now() + this.#startupTimeoutMs
    for (;;) {
      if ((await status(url, caFile === undefined ? undefined : await readCa(caFile))) === 200) return
      if ((await container.inspect()).State.Status === 'exited') throw await exitedError(container)
      if (Date.now() > deadline)
        throw new Error(
          `the sandbox did not answer 200 on /healthz within ${this.#startupTimeoutMs} ms` +
            (caFile === undefined ? '' : ` over HTTPS, trusting the CA in ${caFile}`),
        )
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }
}

/** A container's environment, from its `NAME=value` lines. */
function environmentOf(lines: readonly string[] = []): Record<string, string> {
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
}

/**
 * The status of one GET on a connection of its own (none is kept open), or 0 when none comes; an
 * https URL is trusted through `ca` alone, and with no `ca` yet it is not tried.
 */
function status(url: string, ca?: string): Promise<number> {
  const secure = url.startsWith('https:')
  if (secure && ca === undefined) return Promise.resolve(0)
  return new Promise((resolve) => {
    const options = { agent: false, timeout: REQUEST_TIMEOUT_MS }
    const request = (secure ? secureGet : get)(url, secure ? { ...options, ca } : options, (response) => {
      response.resume()
      response.once('end', () => resolve(response.statusCode ?? 0))
      response.once('error', () => resolve(0))
    })
    request.once('error', () => resolve(0))
    request.once('timeout', () => request.destroy())
  })
}

/** Why a sandbox's container exited, in its last log lines. */
export async function exitedError(container: Container): Promise<Error> {
  const client = await getContainerRuntimeClient()
  const lines: string[] = []
  try {
    const stream = await client.container.logs(container, { tail: LAST_LOG_LINES })
    await new Promise((resolve) => stream.on('data', (line: string) => lines.push(line.trim())).on('end', resolve))
  } catch {
    return new Error('the sandbox exited before it answered /healthz (its logs could not be read)')
  }
  return new Error(`the sandbox exited before it answered /healthz; its last log lines:\n${lines.join('\n')}`)
}
