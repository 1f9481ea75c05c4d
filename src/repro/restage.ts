// A sandbox of the replay's or the shrink's own, in memory on loopback, put in a bundle's starting
// state: the settings that shape answers, the namespace's starting pets and its clock.
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../config.js'
import { createLogger } from '../logger.js'
import { startSandbox } from '../sandbox.js'
import type { Bundle } from '../control/bundle.js'

export interface StagedSandbox {
  /** e.g. http://127.0.0.1:4010 */
  readonly origin: string
  /** The API's base URL, e.g. http://127.0.0.1:4010/v1 */
  readonly baseUrl: string
  readonly apiKey: string
  readonly adminToken: string
  readonly namespace: string
  /** Calls the control API in the bundle's namespace; throws on an answer that is not a success. */
  control(method: string, path: string, body?: unknown): Promise<unknown>
  close(): Promise<void>
}

export async function stageSandbox(bundle: Bundle, { port = 0 }: { port?: number } = {}): Promise<StagedSandbox> {
  const apiKey = `replay-key-${randomBytes(8).toString('hex')}`
  const adminToken = `replay-admin-${randomBytes(8).toString('hex')}`
  const config = loadConfig(['--in-memory'], {
    ...bundle.settings,
    PORT: String(port),
    HOST: '127.0.0.1',
    API_KEYS: apiKey,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'silent',
  })
  if (config === 'help') throw new Error('unreachable: no --help was given')
  const sandbox = await startSandbox(config, createLogger('silent'))
  const namespace = bundle.namespace
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const url = new URL(`${sandbox.origin}/__admin${path}`)
    url.searchParams.set('namespace', namespace)
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} /__admin${path} answered ${res.status}: ${text}`)
    return text === '' ? undefined : JSON.parse(text)
  }
  try {
    await control('PUT', '/pets', bundle.start.pets)
  } catch (error) {
    await sandbox.close()
    throw error
  }
  return {
    origin: sandbox.origin,
    baseUrl: sandbox.baseUrl,
    apiKey,
    adminToken,
    namespace,
    control,
    close: () => sandbox.close(),
  }
}
