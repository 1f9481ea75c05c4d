// A server span's name and attributes as OpenTelemetry's HTTP semantic conventions define them
// (https://opentelemetry.io/docs/specs/semconv/http/http-spans/#http-server), with the names of
// @opentelemetry/semantic-conventions. Loaded with the SDK, only when spans are exported.
import type { IncomingMessage } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type * as Semconv from '@opentelemetry/semantic-conventions'
import type { Exchange } from '../http/exchange.js'

export type Attributes = Record<string, string | number | boolean>

/** What a request says of itself as it arrives: the attributes that do not wait for its answer. */
export interface Arrival {
  /** The method as the conventions name it, or undefined for one they do not know. */
  readonly method: string | undefined
  readonly attributes: Attributes
}

/** The error.type of a connection closed with no answer sent (a `reset` fault, a client gone). */
export const NO_ANSWER_ERROR = 'no_answer'

/** The methods the conventions know; any other is _OTHER, its name kept beside. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'])

/** Query keys whose values the conventions ask to redact by default. */
const REDACTED_QUERY_KEYS = new Set(['AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature'])

export function describeRequest(sc: typeof Semconv) {
  const arrival = (req: IncomingMessage): Arrival => {
    const original = req.method ?? 'GET'
    const method = KNOWN_METHODS.has(original) ? original : undefined
    const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http'
    const attributes: Attributes = {
      [sc.ATTR_HTTP_REQUEST_METHOD]: method ?? sc.HTTP_REQUEST_METHOD_VALUE_OTHER,
      [sc.ATTR_URL_SCHEME]: scheme,
      // 1.0, 1.1, and 2 (not Node's 2.0), as the conventions write them.
      [sc.ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersionMajor === 2 ? '2' : req.httpVersion,
    }
    if (method === undefined) attributes[sc.ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = original
    // The server as the client named it: Host, or HTTP/2's :authority.
    const authority = req.headers[':authority']
    const host = req.headers.host ?? (typeof authority === 'string' ? authority : undefined)
    if (host !== undefined && URL.canParse(`${scheme}://${host}`)) {
      const { hostname, port } = new URL(`${scheme}://${host}`)
      attributes[sc.ATTR_SERVER_ADDRESS] = hostname.replace(/^\[(.*)\]$/, '$1')
      attributes[sc.ATTR_SERVER_PORT] = port === '' ? (scheme === 'https' ? 443 : 80) : Number(port)
    }
    // No proxy's Forwarded header is trusted: the client is the peer.
    const { remoteAddress, remotePort } = req.socket
    if (remoteAddress !== undefined) {
      attributes[sc.ATTR_CLIENT_ADDRESS] = remoteAddress
      attributes[sc.ATTR_NETWORK_PEER_ADDRESS] = remoteAddress
      if (remotePort !== undefined) attributes[sc.ATTR_NETWORK_PEER_PORT] = remotePort
    }
    const userAgent = req.headers['user-agent']
    if (userAgent !== undefined) attributes[sc.ATTR_USER_AGENT_ORIGINAL] = userAgent
    return { method, attributes }
  }

  /** The span's name, `{method} {route}`, and its attributes once the answer is sent (`status`) or not. */
  const answer = (
    arrived: Arrival,
    { path, search }: Exchange,
    route: string | undefined,
    status: number | undefined,
  ): { name: string; attributes: Attributes } => {
    const attributes: Attributes = { ...arrived.attributes, [sc.ATTR_URL_PATH]: path }
    const query = queryOf(search)
    if (query !== undefined) attributes[sc.ATTR_URL_QUERY] = query
    if (route !== undefined) attributes[sc.ATTR_HTTP_ROUTE] = route
    if (status !== undefined) attributes[sc.ATTR_HTTP_RESPONSE_STATUS_CODE] = status
    // A server's span is an error for a 5xx, whose error.type is its status, and for no answer.
    if (status === undefined) attributes[sc.ATTR_ERROR_TYPE] = NO_ANSWER_ERROR
    else if (status >= 500) attributes[sc.ATTR_ERROR_TYPE] = String(status)
    const name = [arrived.method ?? 'HTTP', route].filter(Boolean).join(' ')
    return { name, attributes }
  }
  return { arrival, answer }
}

/** The query without its `?`, the values of the keys the conventions name redacted; none if empty. */
function queryOf(search: string): string | undefined {
  if (search.length <= 1) return undefined
  return search
    .slice(1)
    .split('&')
    .map((pair) => {
      const key = pair.split('=', 1)[0] ?? ''
      return pair.includes('=') && REDACTED_QUERY_KEYS.has(key) ? `${key}=REDACTED` : pair
    })
    .join('&')
}
