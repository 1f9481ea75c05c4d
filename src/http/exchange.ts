// One request as the sandbox serves it: made as it arrives and passed through the app and the
// pipeline, which note on it what they learn (its operation, its namespace, the Error answered),
// for its answer, its log line, its span, its metrics and its journal entry.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { uploadMs } from './body.js'
import { ERRORS, HttpError, sendError } from './errors.js'
import { JsonArray, SerializedJson, sendJson, TypedText, type Reply } from './reply.js'
import { splitUrl } from './url.js'

/** An answer as it was sent: its status, its headers in lower case, its body's text. */
export interface SentAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export class Exchange {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly path: string
  /** The query string with its `?`, or ''. */
  readonly search: string
  operationId: string | undefined
  /** The operation's own headers (deprecation, stability): on every answer, Error bodies included. */
  headers: Readonly<Record<string, string>> | undefined
  /** The methods served at its path: the Allow header of a 405. */
  allow: string | undefined
  /** The Error body answered, if one was. */
  error: { readonly code: string; readonly message: string } | undefined
  /** The namespace it was served in (test control), once known, and its clock. */
  namespace: { readonly name: string; readonly clock: { nowMs(): number } } | undefined
  /** The fault or Prefer that shaped its answer, as the journal shows it. */
  fault: string | null = null
  /** Whether a fault armed through the control API acted on it. */
  injected = false
  /** What test control knows of it: here, not in a WeakMap, whose entries outlive young-generation collections. */
  control: unknown
  /** Called just before an answer is written (the journal records it); a promise it gives (a commit) is waited for. */
  answering: ((status: number) => void | Promise<void>) | undefined
  /** Set to keep the answer sent in `answered` (compare mode reads it). */
  keepsAnswer = false
  answered: SentAnswer | undefined
  /** performance.now() as it arrived. */
  readonly arrived = performance.now()
  /** What a replica that forwarded it spent on it before (ms). */
  spent = 0

  /**
   * When its time began, for the bound on its steps with a database: its arrival, less what a
   * forwarding replica spent on it, its body's upload left out (the client's time).
   */
  get came(): number {
    return this.arrived - this.spent + uploadMs(this.req)
  }

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.req = req
    this.res = res
    const { pathname, search } = splitUrl(req.url ?? '/')
    this.path = pathname
    this.search = search
  }

  /** Answers with a handler's reply, the operation's own headers in front. */
  reply(reply: Reply): void {
    const committing = this.answering?.(reply.status)
    if (committing === undefined) this.#send(reply)
    else
      committing.then(
        () => this.#send(reply),
        (error: unknown) => this.fail(asHttpError(error)),
      )
  }

  #send(reply: Reply): void {
    const headers = this.headers ? { ...this.headers, ...reply.headers } : reply.headers
    if (this.keepsAnswer) this.#keep(reply.status, headers, reply.body)
    sendJson(this.res, headers === reply.headers ? reply : { ...reply, headers })
  }

  /** Answers with an Error body, the operation's own headers in front. */
  fail(error: HttpError): void {
    this.error = error
    const committing = this.res.headersSent ? undefined : this.answering?.(error.status)
    if (committing === undefined) this.#sendError(error)
    else
      committing.then(
        () => this.#sendError(error),
        (failure: unknown) => this.#sendError(asHttpError(failure)),
      )
  }

  #sendError(error: HttpError): void {
    if (this.keepsAnswer)
      this.#keep(error.status, { ...this.headers, ...error.headers }, new SerializedJson(error.toBody()))
    sendError(this.res, error, this.headers)
  }

  #keep(status: number, headers: Readonly<Record<string, string>> | undefined, body: unknown): void {
    const lower = Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]))
    lower['content-type'] = body instanceof TypedText ? body.type : 'application/json; charset=utf-8'
    const text =
      body instanceof TypedText || body instanceof SerializedJson
        ? body.text
        : JSON.stringify(body instanceof JsonArray ? body.items : body)
    this.answered = { status, headers: lower, body: text }
  }
}

/** A failure to commit is answered as the Error it is, or a 500 when it is not an HttpError. */
function asHttpError(error: unknown): HttpError {
  return error instanceof HttpError ? error : new HttpError(ERRORS.internal, ERRORS.internal.message)
}

/** A request's headers as it sent them: HTTP/2's pseudo-headers (:method, :path…) are its request line. */
export function requestHeaders(req: IncomingMessage): IncomingHttpHeaders {
  if (req.httpVersionMajor !== 2) return req.headers
  return Object.fromEntries(Object.entries(req.headers).filter(([name]) => !name.startsWith(':')))
}
