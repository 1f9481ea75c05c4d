// Reads a JSON request body with a hard size cap, before any of it is parsed.
import type { IncomingMessage } from 'node:http'
import { ERRORS, HttpError } from './errors.js'
import { findRoundedInteger } from './json-numbers.js'

export const MAX_BODY_BYTES = 1024 * 1024
/**
 * How deep a control API body may nest: the walks over what a test sent (verify, an answer that
 * echoes it) recurse, and overflow their stack past a few thousand levels. The API's operations
 * ignore what their schema does not name, however deep.
 */
export const MAX_JSON_DEPTH = 128
// After a 413 the rest of an upload is discarded up to this much, so the client reads the answer.
const MAX_DISCARD_BYTES = 16 * MAX_BODY_BYTES

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i
// Fatal: bytes that are not UTF-8 are refused, never silently replaced with U+FFFD.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export type ReadBody = { readonly present: false } | { readonly present: true; readonly value: unknown }

// A body is read once; the journal of requests reads what was received from here.
const reading = new WeakMap<IncomingMessage, Promise<Buffer>>()
const received = new WeakMap<IncomingMessage, Buffer>()
const uploads = new WeakMap<IncomingMessage, number>()
// A body declared empty, as clients send a POST without one (a reset): nothing to wait for, and
// none of the listeners and promise a read allocates, garbage that each of a suite's resets left.
const EMPTY = Buffer.alloc(0)
const EMPTY_READ = Promise.resolve(EMPTY)

/** Content-Length: 0, as clients send a POST without a body. */
export function declaresEmptyBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] === '0'
}

/** The raw bytes of the body, read at most once per request, refused past `limit`. */
export function readRawBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  let read = reading.get(req)
  if (read === undefined) {
    if (declaresEmptyBody(req)) {
      received.set(req, EMPTY)
      return EMPTY_READ
    }
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > limit) {
      discardRest(req)
      read = Promise.reject(tooLarge(limit))
    } else {
      const started = performance.now()
      read = collect(req, limit).then((raw) => {
        received.set(req, raw)
        uploads.set(req, performance.now() - started)
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

/** How long the body took to come, once read (milliseconds): the client's time, not the sandbox's. */
export function uploadMs(req: IncomingMessage): number {
  return uploads.get(req) ?? 0
}

/** `maxDepth`: deeper nesting is refused with a 400 (MAX_JSON_DEPTH for the control API). */
export async function readJsonBody(
  req: IncomingMessage,
  limit = MAX_BODY_BYTES,
  maxDepth = Infinity,
): Promise<ReadBody> {
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
  if (maxDepth !== Infinity && jsonDepth(text) > maxDepth)
    throw new HttpError(
      ERRORS.invalidBody,
      `Invalid request body: arrays and objects nest deeper than ${maxDepth} levels, the most the control API reads`,
    )
  const rounded = findRoundedInteger(text, 'body')
  if (rounded) {
    throw new HttpError(
      ERRORS.invalidBody,
      `Invalid request body: ${rounded.path} is ${rounded.literal.slice(0, 40)}, which JSON numbers cannot carry exactly (it would become ${rounded.parsed}); send the exact integer`,
    )
  }
  return { present: true, value }
}

/** How deep arrays and objects nest in `text`, valid JSON: counted on the text, without recursion. */
export function jsonDepth(text: string): number {
  // Each level takes two characters at least: a short text cannot be deep (most bodies).
  if (text.length <= 2 * MAX_JSON_DEPTH) return 0
  let depth = 0
  let deepest = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return deepest
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
