// The container's HEALTHCHECK: exit 0 when GET /healthz answers 200 on the port the sandbox was
// given, 1 otherwise. Plain node, so the image needs no curl or shell.
import { loadConfig } from './config.js'

const TIMEOUT_MS = 2000

async function healthcheck(): Promise<number> {
  const config = loadConfig([], process.env)
  if (config === 'help') return 1
  const host =
    config.host === '0.0.0.0'
      ? '127.0.0.1'
      : config.host === '::'
        ? '[::1]'
        : config.host.includes(':')
          ? `[${config.host}]`
          : config.host
  try {
    const response = await fetch(`http://${host}:${config.port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    return response.status === 200 ? 0 : 1
  } catch {
    return 1
  }
}

process.exitCode = await healthcheck()
