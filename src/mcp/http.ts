// /mcp: the MCP server over streamable HTTP, guarded as the control API is. Stateless, a server per
// POST (no session to lose on a restart), whose tools call the sandbox's own address over loopback.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type { Endpoint } from '../capability.js'
import { ERRORS, HttpError } from '../http/errors.js'
import { createMcpServer } from './server.js'
import type { Target } from './tools.js'

export const MCP_PATH = '/mcp'

/** Which pages may call /mcp from a browser: those the control API lets in, and the sandbox's own. */
export interface McpOrigins {
  /** ADMIN_CORS_ORIGINS: exact origins, or ['*'] for any. */
  readonly corsOrigins: readonly string[]
  /** Whether a Host header names this sandbox (src/http/hosts.ts). */
  readonly servesHost: (host: string | undefined) => boolean
}

/** `target` is read per request: the sandbox knows its address only once it listens. */
export function mcpEndpoint(target: () => Target, origins: McpOrigins): Endpoint {
  const accepts = originCheck(origins)
  return (req, res, answerError) => {
    // Stateless: no stream of server-initiated messages (GET) and no session to end (DELETE).
    if (req.method !== 'POST') {
      answerError(
        new HttpError(ERRORS.methodNotAllowed, `${MCP_PATH} takes MCP messages by POST (stateless streamable HTTP)`, {
          Allow: 'POST',
        }),
      )
      return
    }
    const origin = req.headers.origin
    if (!accepts(req, origin)) {
      answerError(
        new HttpError(
          ERRORS.forbiddenOrigin,
          `${MCP_PATH} does not accept calls from pages of the origin ${JSON.stringify(origin)}: only from its own origin and those ADMIN_CORS_ORIGINS names`,
        ),
      )
      return
    }
    serve(req, res, target()).catch(answerError)
  }
}

/**
 * The MCP specification asks a streamable HTTP server to check Origin on every request, against DNS
 * rebinding. The SDK's own check (allowedOrigins, deprecated) knows fixed origins only; the
 * sandbox's own origin is the one its request names. A request without Origin comes from no browser.
 */
function originCheck({ corsOrigins, servesHost }: McpOrigins): (req: IncomingMessage, origin?: string) => boolean {
  if (corsOrigins.includes('*')) return () => true
  const allowed = new Set(corsOrigins)
  return (req, origin) => {
    if (origin === undefined || allowed.has(origin)) return true
    // HTTP/2 names the host in :authority, which Node's compatibility API does not copy to Host.
    const authority = req.headers[':authority']
    const host = req.headers.host ?? (typeof authority === 'string' ? authority : undefined)
    if (host === undefined || !servesHost(host) || !URL.canParse(origin)) return false
    const scheme = (req.socket as TLSSocket).encrypted === true ? 'https:' : 'http:'
    const own = URL.canParse(`${scheme}//${host}`) ? new URL(`${scheme}//${host}`).origin : undefined
    return new URL(origin).origin === own
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
  const [{ StreamableHTTPServerTransport }, server] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    createMcpServer(target),
  ])
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  res.once('close', () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(req, res)
}
