// The container's HEALTHCHECK: exit 0 when GET /healthz answers 200 on the port the sandbox was
// given, 1 otherwise. Plain node, so the image needs no curl or shell. Over HTTPS it trusts what a
// client would: the CA that TLS_CA_OUT holds, or the certificate TLS_CERT names, itself a trust
// anchor (a partial chain), for the name localhost; verification stays on.
import { readFileSync } from 'node:fs'
import { get } from 'node:https'
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
    if (config.tls === undefined) {
      const response = await fetch(`http://${host}:${config.port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
      return response.status === 200 ? 0 : 1
    }
    const ca = config.tls.kind === 'own' ? config.tls.cert : readFileSync(config.tlsCaOut ?? '', 'utf8')
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(
        `https://${host}:${config.port}/healthz`,
        { ca, allowPartialTrustChain: true, servername: 'localhost', timeout: TIMEOUT_MS },
        (res) => {
          res.resume()
          resolve(res.statusCode)
        },
      )
        .on('timeout', () => reject(new Error('timeout')))
        .on('error', reject),
    )
    return status === 200 ? 0 : 1
  } catch {
    return 1
  }
}

process.exitCode = await healthcheck()
