// Helpers for the control API's tests: a sandbox with a known admin token, and typed calls.
import type { Test } from 'tap'
import type { DataFileOptions } from '../../src/store/data-file.js'
import { AUTH, startTestSandbox } from './sandbox.js'

export const ADMIN_TOKEN = 'test-admin-token'
export const ADMIN_AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` }

/** The header that picks a namespace. */
export const ns = (name: string): Record<string, string> => ({ 'x-sandbox-namespace': name })

/** A W3C traceparent header for `traceId`. */
export const traceparent = (traceId: string): Record<string, string> => ({
  traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
})

/** One field of each entry of a journal page (GET /__admin/requests). */
export const pluck = (page: Call, field: string): unknown[] =>
  page.body.entries.map((entry: Record<string, unknown>) => entry[field])

export interface Call {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

export type ControlSandbox = Awaited<ReturnType<typeof startControlSandbox>>

/**
 * A sandbox with the control API on (token ADMIN_TOKEN), plus helpers to call both APIs. `storage`
 * can put a file system that fails chosen calls under its data file.
 */
export async function startControlSandbox(t: Test, env: Record<string, string> = {}, storage: DataFileOptions = {}) {
  const sandbox = await startTestSandbox(t, { ADMIN_TOKEN, ...env }, {}, storage)
  /** Calls the control API; `body` is sent as JSON. */
  const control = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = ADMIN_AUTH,
  ): Promise<Call> => call(`${sandbox.origin}/__admin${path}`, method, body, headers)
  /** Calls the Animal Store API with the test key; `headers` are added. */
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Call> =>
    call(`${sandbox.baseUrl}${path}`, method, body, { ...AUTH, ...headers })
  /** The names of the namespaces kept, sorted. */
  const namespaceNames = async (): Promise<string[]> =>
    (await control('GET', '/namespaces')).body.namespaces.map((n: { name: string }) => n.name).sort()
  return { ...sandbox, control, api, namespaceNames }
}

export async function call(url: string, method: string, body: unknown, headers: Record<string, string>): Promise<Call> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return answerOf(res)
}

/** A fetch's answer as a Call: its body read, as JSON when it has one. */
export async function answerOf(res: Response): Promise<Call> {
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) }
}
