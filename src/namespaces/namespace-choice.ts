// Which namespace a request asks for: by the X-Sandbox-Namespace header, its API key in the key
// mode (NAMESPACE_KEY_PREFIX), or the W3C Baggage member sandbox.namespace; else the default one.
import type { IncomingMessage } from 'node:http'
import { baggageValues } from '../http/baggage.js'
import { traceIdOf } from '../http/trace-context.js'
import { bearerToken } from '../pipeline/auth.js'

export const DEFAULT_NAMESPACE = 'default'
export const NAMESPACE_HEADER = 'x-sandbox-namespace'
/** Also a safe file-name part: no slash, no leading dot. */
export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/** The W3C Baggage member that names a request's namespace, for services that pass baggage on. */
export const NAMESPACE_BAGGAGE = 'sandbox.namespace'

/**
 * Which namespace a request asks for: its name, or the problem with what it sent. It may name one
 * by the X-Sandbox-Namespace header, by its API key in the key mode, or by the baggage member
 * sandbox.namespace; those it sends must agree. Naming none, it gets the default namespace, or
 * with `fromTrace` (NAMESPACE_FROM_TRACE) the one named after the trace id of its traceparent.
 */
export function namespaceOf(
  req: IncomingMessage,
  keyPrefix: string | undefined,
  fromTrace = false,
): { name: string; fromTrace?: boolean; problem?: undefined } | { name?: undefined; problem: string } {
  const header = req.headers[NAMESPACE_HEADER]
  const sent: Array<{ by: string; value: string | undefined }> = []
  if (header !== undefined) sent.push({ by: 'X-Sandbox-Namespace', value: String(header) })
  for (const value of baggageValues(req, NAMESPACE_BAGGAGE)) {
    sent.push({ by: `The baggage member ${NAMESPACE_BAGGAGE}`, value })
  }
  const named: Array<{ by: string; name: string }> = []
  for (const { by, value } of sent) {
    if (value === undefined || !NAMESPACE_NAME.test(value)) {
      const got =
        value === undefined ? 'a value that is not valid percent-encoding' : JSON.stringify(value.slice(0, 80))
      return {
        problem: `${by} must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got ${got}`,
      }
    }
    named.push({ by, name: value })
  }
  const fromKey = keyPrefix === undefined ? undefined : namespaceOfKey(bearerToken(req), keyPrefix)
  if (fromKey !== undefined) named.push({ by: 'the API key', name: fromKey })
  const [first, ...others] = named
  if (first === undefined) {
    // A trace id is 32 hex digits: a valid namespace name.
    const traceId = fromTrace ? traceIdOf(req) : undefined
    return traceId === undefined ? DEFAULT_CHOICE : { name: traceId, fromTrace: true }
  }
  const other = others.find((o) => o.name !== first.name)
  if (other !== undefined) {
    return {
      problem: `${first.by} (namespace ${first.name}) and ${lowerFirst(other.by)} (namespace ${other.name}) choose different namespaces: send one of them`,
    }
  }
  return { name: first.name }
}

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1)

// What nearly every request asks for: one object for all of them.
const DEFAULT_CHOICE = Object.freeze({ name: DEFAULT_NAMESPACE })

/** In the key mode, the namespace a key selects: the part after the prefix. */
export function namespaceOfKey(token: string | undefined, keyPrefix: string): string | undefined {
  if (token === undefined || !token.startsWith(keyPrefix)) return undefined
  const name = token.slice(keyPrefix.length)
  return NAMESPACE_NAME.test(name) ? name : undefined
}
