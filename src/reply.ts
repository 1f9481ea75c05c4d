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

export const JSON_TYPE = 'application/json; charset=utf-8'

export function sendJson(res: ServerResponse, reply: Reply): void {
  const body = reply.body instanceof SerializedJson ? reply.body.bytes : Buffer.from(JSON.stringify(reply.body))
  writeHead(res, reply.status, { ...reply.headers, 'Content-Type': JSON_TYPE, 'Content-Length': body.length })
  res.end(body)
}

/**
 * Every answer's head, with the headers the pipeline gave the whole operation (deprecation) in
 * front: one writeHead costs less than a setHeader per header, which is paid on every request.
 */
export function writeHead(res: ServerResponse, status: number, headers: Record<string, string | number>): void {
  const common = res.locals?.headers
  res.writeHead(status, common ? { ...common, ...headers } : headers)
}

declare module 'node:http' {
  interface ServerResponse {
    /** What the pipeline knows of the request's operation, for the answer, the log and the journal. */
    locals?: { operationId?: string; headers?: Readonly<Record<string, string>> | undefined }
  }
}
