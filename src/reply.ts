import type { ServerResponse } from 'node:http'

/** What a handler answers: a status, a JSON body and extra headers. */
export interface Reply {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export function sendJson(res: ServerResponse, reply: Reply): void {
  const body = JSON.stringify(reply.body)
  res.statusCode = reply.status
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value)
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}
