// The container's HEALTHCHECK: exit 0 when GET /healthz answers 200 on the port the sandbox was
// given, 1 otherwise. Plain node, so the image needs no curl or shell. Over HTTPS it trusts what a
// client would: the CA that TLS_CA_OUT holds, for the name localhost, or the certificate TLS_CERT
// names, itself a trust anchor (a partial chain); verification stays on.
import { X509Certificate } from 'node:crypto'
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
    const own = config.tls.kind === 'own' ? new X509Certificate(config.tls.cert) : undefined
    const ca = config.tls.kind === 'own' ? config.tls.cert : readFileSync(config.tlsCaOut ?? '', 'utf8')
    // A certificate brought may name only the hosts its clients use (a compose service's): the
    // check holds the server to serve that very certificate instead of to the name localhost.
    const served = own && {
      checkServerIdentity: (_name: string, peer: { fingerprint256: string }) =>
        peer.fingerprint256 === own.fingerprint256 ? undefined : new Error('not the certificate TLS_CERT names'),
    }
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(
        `https://${host}:${config.port}/healthz`,
        { ca, allowPartialTrustChain: true, servername: 'localhost', timeout: TIMEOUT_MS, ...served },
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
