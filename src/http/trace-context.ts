// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header that
// OpenTelemetry-instrumented services pass on with every outbound call,
// `version-traceid-parentid-flags`. Only the trace id is read here: it ties together the calls of
// one test, whoever made them.
import type { IncomingMessage } from 'node:http'

// Version 00 is exactly this; a later version may add fields after the flags, behind a '-'.
// Version ff is invalid.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/
const ALL_ZERO = /^0+$/

/** The request's trace id (32 lowercase hex digits), or undefined without a valid traceparent. */
export function traceIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers['traceparent']
  if (typeof header !== 'string') return undefined
  const match = TRACEPARENT.exec(header.trim())
  if (match === null) return undefined
  const [, version, traceId, parentId, rest] = match as unknown as [string, string, string, string, string | undefined]
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return undefined
  return traceId
}
