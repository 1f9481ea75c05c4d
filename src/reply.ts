import type { ServerResponse } from 'node:http'

/** What a handler answers: a status, a JSON body and extra headers. */
export interface Reply {
  readonly status: number
  /** A value to serialise, or JSON already serialised. */
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** A JSON body serialised once, to be sent as it is any number of times. */
export class SerializedJson {
  readonly bytes: Buffer
  constructor(value: unknown) {
    this.bytes = Buffer.from(JSON.stringify(value))
  }
}

export function sendJson(res: ServerResponse, reply: Reply): void {
  const body = reply.body instanceof SerializedJson ? reply.body.bytes : Buffer.from(JSON.stringify(reply.body))
  res.statusCode = reply.status
  if (reply.headers) for (const name in reply.headers) res.setHeader(name, reply.headers[name] as string)
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', body.length)
  res.end(body)
}
