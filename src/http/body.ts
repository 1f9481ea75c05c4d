// Reads a JSON request body with a hard size cap, before any of it is parsed.
import type { IncomingMessage } from 'node:http'
import { ERRORS, HttpError } from './errors.js'
import { findRoundedInteger } from './json-numbers.js'

export const MAX_BODY_BYTES = 1024 * 1024
// After a 413 the rest of an oversized upload is discarded, up to this much, so the client can
// read the answer; past it the connection is cut.
const MAX_DISCARD_BYTES = 16 * MAX_BODY_BYTES

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i
// Fatal: bytes that are not UTF-8 are refused, never replaced with U+FFFD (the client's data
// would be changed without a word).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export type ReadBody = { readonly present: false } | { readonly present: true; readonly value: unknown }

// A body is read once; the journal of requests reads what was received from here.
const reading = new WeakMap<IncomingMessage, Promise<Buffer>>()
const received = new WeakMap<IncomingMessage, Buffer>()

/** The raw bytes of the body, read at most once per request, refused past `limit`. */
export function readRawBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  let read = reading.get(req)
  if (read === undefined) {
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > limit) {
      discardRest(req)
      read = Promise.reject(tooLarge(limit))
    } else {
      read = collect(req, limit).then((raw) => {
        received.set(req, raw)
        return raw
      })
    }
    reading.set(req, read)
  }
  return read
}

/** The body bytes, when they have been read (undefined when nobody asked for them). */
export function receivedBody(req: IncomingMessage): Buffer | undefined {
  return received.get(req)
}

export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<ReadBody> {
  const raw = await readRawBody(req, limit)
  if (raw.length === 0) return { present: false }

  const [mediaType, ...params] = (req.headers['content-type'] ?? '').split(';').map((part) => part.trim())
  if (!mediaType || !JSON_MEDIA_TYPE.test(mediaType)) {
    throw new HttpError(
      ERRORS.unsupportedMediaType,
      `Content-Type must be application/json, got ${mediaType ? JSON.stringify(mediaType) : 'none'}`,
    )
  }
  const charset = params
    .find((p) => /^charset=/i.test(p))
    ?.slice('charset='.length)
    .replace(/"/g, '')
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new HttpError(
      ERRORS.unsupportedMediaType,
      `The only supported charset is utf-8, got ${JSON.stringify(charset)}`,
    )
  }
  let text: string
  try {
    text = UTF8.decode(raw)
  } catch {
    throw new HttpError(
      ERRORS.unsupportedMediaType,
      'The request body is not valid UTF-8: send it in UTF-8, the only charset accepted',
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new HttpError(ERRORS.malformedJson, `The request body is not valid JSON: ${(error as Error).message}`)
  }
  const rounded = findRoundedInteger(text, 'body')
  if (rounded) {
    throw new HttpError(
      ERRORS.invalidBody,
      `Invalid request body: ${rounded.path} is ${rounded.literal.slice(0, 40)}, which JSON numbers cannot carry exactly (it would become ${rounded.parsed}); send the exact integer`,
    )
  }
  return { present: true, value }
}

function collect(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        discardRest(req)
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = (): void => {
      cleanup()
      resolve(Buffer.concat(chunks, size))
    }
    const onError = (error: Error): void => {
      cleanup()
      reject(error)
    }
    // A client that goes away mid-body must not leave this promise waiting forever.
    const onClose = (): void =>
      onError(
        Object.assign(new Error('the client closed the connection before the body ended'), { code: 'ECONNRESET' }),
      )
    const cleanup = (): void => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}

function tooLarge(limit: number): HttpError {
  return new HttpError(ERRORS.payloadTooLarge, `The request body is larger than ${limit} bytes`, {
    Connection: 'close',
  })
}

function discardRest(req: IncomingMessage): void {
  let discarded = 0
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length
    if (discarded > MAX_DISCARD_BYTES) req.socket.destroy()
  })
  req.resume()
}
