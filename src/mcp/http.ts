// /mcp: the MCP server over streamable HTTP, guarded as the control API is. Stateless, a server per
// POST (no session to lose on a restart), whose tools call the sandbox's own address over loopback.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ERRORS, HttpError } from '../http/errors.js'
import { createMcpServer } from './server.js'
import type { Target } from './tools.js'

export const MCP_PATH = '/mcp'

export type McpEndpoint = (req: IncomingMessage, res: ServerResponse, answerError: (error: unknown) => void) => void

/** `target` is read per request: the sandbox knows its address only once it listens. */
export function mcpEndpoint(target: () => Target): McpEndpoint {
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
    serve(req, res, target()).catch(answerError)
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
