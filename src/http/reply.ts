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
  readonly text: string
  readonly byteLength: number
  constructor(value: unknown) {
    this.text = JSON.stringify(value)
    this.byteLength = Buffer.byteLength(this.text)
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** A body that is not JSON (a Markdown report): sent as it is, with its media type. */
export class TypedText {
  readonly type: string
  readonly text: string
  constructor(type: string, text: string) {
    this.type = type
    this.text = text
  }
}

/**
 * A JSON array sent in pieces as the client takes them (chunked), never serialised as one string:
 * every pet of a store, which can be hundreds of megabytes. The items are those of the moment it
 * is made.
 */
export class JsonArray {
  readonly items: readonly unknown[]
  constructor(items: readonly unknown[]) {
    this.items = items.slice()
  }
}

/** A JsonArray is sent in pieces of about this many characters. */
const ARRAY_CHUNK_CHARS = 64 * 1024

export function sendJson(res: ServerResponse, reply: Reply): void {
  if (reply.body instanceof JsonArray) return sendJsonArray(res, reply.status, reply.body.items, reply.headers)
  if (reply.body instanceof TypedText) {
    const { type, text } = reply.body
    res.writeHead(reply.status, {
      ...reply.headers,
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(text),
    })
    res.end(text)
  } else if (reply.body instanceof SerializedJson)
    sendJsonText(res, reply.status, reply.body.text, reply.body.byteLength, reply.headers)
  else sendJsonText(res, reply.status, JSON.stringify(reply.body), undefined, reply.headers)
}

/**
 * Every JSON answer goes out here. One writeHead costs less than a setHeader per header, and text costs less than a
 * Buffer: node:http sends it in the same write as the head, where a Buffer takes a writev.
 */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  json: string,
  byteLength = Buffer.byteLength(json),
  headers?: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': byteLength })
  res.end(json)
}

function sendJsonArray(
  res: ServerResponse,
  status: number,
  items: readonly unknown[],
  headers?: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE })
  let next = 0
  // The next piece once the client has taken the last one; a client that goes away takes none.
  const pump = (): void => {
    for (;;) {
      let text = next === 0 ? '[' : ''
      for (; next < items.length && text.length < ARRAY_CHUNK_CHARS; next++)
        text += (next === 0 ? '' : ',') + JSON.stringify(items[next])
      if (next === items.length) return void res.end(`${text}]`)
      if (!res.write(text)) return void res.once('drain', pump)
    }
  }
  pump()
}
