// `pact verify`: the official verifier (an optional dependency) replays a Pact through a local filter
// that puts a real key for the redacted one and a namespace of its own, and restores each provider
// state through the control API.
import { randomUUID } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { REDACTED_BEARER } from './export.js'
import { stateChange } from './states.js'

const STATE_PATH = '/__pact/provider-states'
const NAMESPACE_HEADER = 'x-sandbox-namespace'
// The package is optional: the image and most users never verify a Pact.
const VERIFIER_PACKAGE = '@pact-foundation/pact-core'

export interface PactVerifyOptions {
  /** The Pact file (JSON, V2 to V4). */
  readonly file: string
  /** The sandbox's origin, e.g. http://127.0.0.1:4010 (a path after it is ignored). */
  readonly url: string
  readonly adminToken: string
  readonly apiKey: string
}

export class PactVerifyError extends Error {
  override name = 'PactVerifyError'
}

/** Runs the verifier; resolves true when every interaction passed. Its report goes to stdout. */
export async function verifyPact(options: PactVerifyOptions): Promise<boolean> {
  // The verifier reports usage to its makers unless told not to; a test run sends nothing out.
  process.env['PACT_DO_NOT_TRACK'] ??= 'true'
  const verifier = await loadVerifier()
  const sandbox = new URL(options.url)
  const namespace = `pact-verify-${randomUUID().slice(0, 8)}`
  const control = controlOf(sandbox, options.adminToken, namespace)
  const filter = requestFilter(sandbox, namespace, options.apiKey, control)
  await new Promise<void>((resolve) => filter.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(filter.address() as AddressInfo).port}`
  try {
    await verifier.verifyPacts({
      providerBaseUrl: origin,
      pactUrls: [options.file],
      providerStatesSetupUrl: `${origin}${STATE_PATH}`,
      // warn keeps the verifier's report alone on stdout.
      logLevel: process.env['PACT_LOG_LEVEL'] ?? 'warn',
      failIfNoPactsFound: true,
    })
    return true
  } catch (error) {
    // A failed verification rejects with the verifier's results; the report is already printed.
    if (error instanceof Error && /^\s*[[{]/.test(error.message)) return false
    if (error instanceof Error && error.message === 'Verification was unable to run')
      throw new PactVerifyError(`the verifier could not run: is ${options.file} a Pact file?`)
    throw error
  } finally {
    filter.closeAllConnections()
    await new Promise((resolve) => filter.close(resolve))
    await control('DELETE', `/namespaces/${namespace}`).catch(() => undefined)
  }
}

interface Verifier {
  verifyPacts(options: Record<string, unknown>): Promise<string>
}

async function loadVerifier(): Promise<Verifier> {
  try {
    const core = (await import(VERIFIER_PACKAGE)) as { default: { default?: Verifier } & Verifier }
    return core.default.default ?? core.default
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new PactVerifyError(
        `pact verify needs the package ${VERIFIER_PACKAGE}: npm install --save-dev ${VERIFIER_PACKAGE}`,
      )
    throw error
  }
}

/**
 * A server on 127.0.0.1 that takes the verifier's state changes at STATE_PATH and passes every
 * other request on to the sandbox, in the namespace, with the API key where the Pact has the
 * redacted one (a request without a key, or with a wrong one, stays as it is: it expects a 401).
 */
function requestFilter(sandbox: URL, namespace: string, apiKey: string, control: ControlCall): Server {
  return createServer((req, res) => {
    if (req.url === STATE_PATH) {
      changeState(req, control).then(
        (reply) => send(res, 200, reply),
        (error: unknown) => {
          // The verifier's report says only that the state failed: this line says why.
          process.stderr.write(`animal-store-sandbox: provider state: ${(error as Error).message}\n`)
          // Not a 5xx: the verifier retries those, at length.
          send(res, 400, { error: (error as Error).message })
        },
      )
      return
    }
    const headers = { ...req.headers, host: sandbox.host, [NAMESPACE_HEADER]: namespace }
    if (headers.authorization === REDACTED_BEARER) headers.authorization = `Bearer ${apiKey}`
    const upstream = (sandbox.protocol === 'https:' ? httpsRequest : httpRequest)(
      new URL(req.url ?? '/', sandbox.origin),
      { method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', (error) => send(res, 502, { error: `the sandbox did not answer: ${error.message}` }))
    req.pipe(upstream)
  })
}

/** The verifier's state change: `{state, params, action}`; a teardown changes nothing. */
async function changeState(req: IncomingMessage, control: ControlCall): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const { state, params, action } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
    state?: string
    params?: Record<string, unknown>
    action?: string
  }
  if (action === 'teardown' || state === undefined) return {}
  const change = stateChange(state, params)
  if (change === undefined)
    throw new PactVerifyError(
      `unknown provider state ${JSON.stringify(state)}: the sandbox knows a seed, a snapshot, the initial data and a pet by id (docs/pact.md)`,
    )
  if ('reset' in change) {
    await control('POST', '/reset', change.reset ?? undefined)
    return {}
  }
  // The pet the interaction reads: kept if the data has it, else added with that id.
  const pets = (await control('GET', '/pets')) as { id: number }[]
  if (pets.some((pet) => pet.id === change.petExists)) return {}
  const pet = { id: change.petExists, name: 'Rex', categoryId: 1, status: 'available' }
  await control(
    'PUT',
    '/pets',
    [...pets, pet].sort((a, b) => a.id - b.id),
  )
  return {}
}

type ControlCall = (method: string, path: string, body?: unknown) => Promise<unknown>

/** The sandbox's control API, in the verification's namespace. */
function controlOf(sandbox: URL, token: string, namespace: string): ControlCall {
  return async (method, path, body) => {
    const url = new URL(`/__admin${path}`, sandbox.origin)
    if (method !== 'DELETE') url.searchParams.set('namespace', namespace)
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const answer = (await res.json().catch(() => null)) as { message?: string } | null
    if (!res.ok)
      throw new PactVerifyError(
        `${method} ${url.pathname}${url.search} answered ${res.status}: ${answer?.message ?? 'no Error body'}`,
      )
    return answer
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}
