// The MCP capability: /mcp, served while the control API is on and guarded as it is.
import type { Capability } from '../capability.js'
import { MCP_PATH, mcpEndpoint, type McpOrigins } from './http.js'
import type { Target } from './tools.js'

/** `target` is read per request: the sandbox knows its address only once it listens. */
export function mcp(target: () => Target, origins: McpOrigins): Capability {
  return { name: 'mcp', routes: { guarded: { [MCP_PATH]: mcpEndpoint(target, origins) } } }
}
