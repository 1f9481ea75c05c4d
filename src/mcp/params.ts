// Invalid params as JSON-RPC 2.0 and the MCP specification name them. The SDK's Server parses a
// request with its handler's schema before the handler runs and answers a refusal -32603 (Internal
// error) with the raw validation issues; its McpServer instead throws McpError(InvalidParams) with
// each issue and where it is. Handlers registered here do as the McpServer does. (The SDK's own
// initialize handler still answers -32603: modelcontextprotocol/typescript-sdk#2284.)
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest, ServerResult } from '@modelcontextprotocol/sdk/types.js'
import type { ZodObject, ZodLiteral, output } from 'zod/v4'

type RequestSchema = ZodObject<{ method: ZodLiteral<string> }>
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

export type Handle = <S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: output<S>, extra: Extra) => ServerResult | Promise<ServerResult>,
) => void

/**
 * `handle(server, schema, handler)` registers `handler` under the method of `schema`; a request
 * `schema` refuses is -32602 naming its parameters.
 */
export async function loadHandle(): Promise<Handle> {
  const [{ McpError, ErrorCode }, { getParseErrorMessage }] = await Promise.all([
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/server/zod-compat.js'),
  ])
  // The method alone, so that the SDK lets every request of it through to the check below.
  return (server, schema, handler) =>
    server.setRequestHandler(schema.pick({ method: true }).loose(), (request, extra) => {
      const parsed = schema.safeParse(request)
      if (!parsed.success)
        throw new McpError(
          ErrorCode.InvalidParams,
          `Invalid params for ${schema.shape.method.value}: ${getParseErrorMessage(parsed.error).replaceAll('\n', '; ')}`,
        )
      return handler(parsed.data, extra)
    })
}
