// HTTPS for the tests: a TLS=auto sandbox, and clients that trust its CA alone, verification on.
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2'
import { request } from 'node:https'
import type { Test } from 'tap'
import type { ServerLimits } from '../../src/sandbox.js'
import { startTestSandbox } from './sandbox.js'

export interface Answer {
  readonly status: number
  readonly headers: Record<string, unknown>
  readonly body: string
}

export interface Call {
  readonly method?: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

/** A TLS=auto sandbox, stopped when the test ends, with the CA it made and its port. */
export async function startTlsSandbox(t: Test, env: Record<string, string> = {}, limits: Partial<ServerLimits> = {}) {
  const sandbox = await startTestSandbox(t, { TLS: 'auto', ...env }, limits)
  if (sandbox.tlsCa === undefined) throw new Error('TLS=auto made no CA')
  return { ...sandbox, ca: sandbox.tlsCa, port: Number(new URL(sandbox.origin).port) }
}

/** One request over HTTPS/1.1 trusting `ca` alone; `tls` adds a server name or a client certificate. */
export function overHttp1(
  origin: string,
  ca: string,
  { method = 'GET', path, headers = {}, body = '' }: Call,
  tls: { servername?: string; cert?: string; key?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers, ca, ...tls }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** An HTTP/2 session trusting `ca` alone, destroyed when the test ends. */
export function http2Session(t: Test, origin: string, ca: string): ClientHttp2Session {
  const session = http2Connect(origin, { ca })
  t.teardown(() => session.destroy())
  return session
}

/** One request on an HTTP/2 session. */
export function overHttp2(
  session: ClientHttp2Session,
  { method = 'GET', path, headers = {}, body = '' }: Call,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...headers }, { endStream: body === '' })
    let answered: Record<string, unknown> = {}
    let text = ''
    stream.setEncoding('utf8')
    stream.on('response', (h) => (answered = h))
    stream.on('data', (chunk: string) => (text += chunk))
    stream.on('end', () => resolve({ status: Number(answered[':status']), headers: answered, body: text }))
    stream.on('error', reject)
    if (body !== '') stream.end(body)
  })
}
