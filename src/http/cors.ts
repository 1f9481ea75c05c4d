// CORS, for browser-based tests whose app calls the sandbox from another origin. It runs before
// routing, so a preflight never meets the 405 a known path gives an unknown method, and every
// answer to a browser, Error bodies included, carries the headers it needs to read it.
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Every method: a method the API lacks still gets the sandbox's own 405 Error, readable by the app. */
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS'
// Prefer and X-Sandbox-Namespace: the per-request test controls (faults, latency, namespaces). The
// W3C trace headers an instrumented browser app sends: baggage may name the namespace, and
// traceparent ties the calls to the test's trace. Idempotency-Key: a create's retry, made safe.
const ALLOWED_HEADERS =
  'Authorization, Content-Type, Prefer, X-Sandbox-Namespace, traceparent, tracestate, baggage, Idempotency-Key'
/** Response headers a browser app may read: the new pet's address, deprecation, auth and 405 hints, a replay. */
const EXPOSED_HEADERS = 'Location, Deprecation, Sunset, Link, WWW-Authenticate, Allow, Retry-After, Idempotent-Replayed'
const PREFLIGHT_MAX_AGE_SECONDS = '600'

/**
 * For the allowed origins (['*'] for any; [] for none, a preflight then meeting the route's own
 * answer): answers a preflight (true), or adds the headers a browser needs to read the answer.
 */
export function cors(origins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  if (origins.length === 0) return () => false
  const anyOrigin = origins.includes('*')
  const allowed = new Set(origins)
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin
    // A browser sends Origin with every cross-origin request; without it there is no page to
    // allow, and in the any-origin mode the headers would only cost time on every answer.
    if (anyOrigin && origin === undefined) return false
    if (anyOrigin) {
      res.setHeader('Access-Control-Allow-Origin', '*')
    } else {
      // The answer depends on the Origin header, so caches must keep one copy per origin.
      res.setHeader('Vary', 'Origin')
      if (origin !== undefined && allowed.has(origin)) res.setHeader('Access-Control-Allow-Origin', origin)
    }
    const isPreflight =
      req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined
    if (!isPreflight) {
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS)
      return false
    }
    // A refused origin gets no Allow-* headers, and the browser stops the request there.
    if (res.hasHeader('Access-Control-Allow-Origin')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS)
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS)
      res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS)
    }
    res.statusCode = 204
    res.setHeader('Content-Length', '0')
    res.end()
    return true
  }
}
