// `animal-store-sandbox mcp --url <sandbox>`: MCP over stdio for a sandbox running elsewhere. stdout
// carries the protocol alone; anything for people goes to stderr.
import { parseArgs } from 'node:util'
import { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY } from '../pipeline/auth.js'
import { ConfigError } from '../setting-readers.js'
import { createMcpServer } from './server.js'
import type { Target } from './tools.js'

export const MCP_HELP = `animal-store-sandbox mcp: an MCP server (stdio) whose tools drive a running sandbox

Usage: animal-store-sandbox mcp --url <sandbox> [options]

  --url <url>           the sandbox's address, e.g. http://localhost:4010 (required)
  --admin-token <t>     its admin token (else ADMIN_TOKEN; default ${DEFAULT_ADMIN_TOKEN})
  --api-key <key>       an API key it accepts (else the first of API_KEYS; default ${DEFAULT_API_KEY})
  --all-namespaces      let tools reach across every namespace (listNamespaces, getCoverage
                        with all=true); without it each call acts on one namespace
  -h, --help            print this help
`

type Env = Record<string, string | undefined>

/** The target the flags name; 'help' when --help was asked for. Throws ConfigError naming a bad flag. */
export function readMcpTarget(argv: readonly string[], env: Env): Target | 'help' {
  let values
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        'admin-token': { type: 'string' },
        'api-key': { type: 'string' },
        'all-namespaces': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    throw new ConfigError(`mcp: ${(error as Error).message}. Run with mcp --help to see the options.`)
  }
  if (values.help === true) return 'help'
  if (values.url === undefined) throw new ConfigError('mcp: --url is required: the address of the sandbox to drive')
  let url: URL
  try {
    url = new URL(values.url)
  } catch {
    throw new ConfigError(`mcp: --url must be an http:// or https:// address, got ${JSON.stringify(values.url)}`)
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.pathname !== '/' || url.search !== '')
    throw new ConfigError(
      `mcp: --url must be the sandbox's address alone, as http://localhost:4010 (no path: the tools add /v1 and /__admin), got ${JSON.stringify(values.url)}`,
    )
  const fromEnv = (name: string) => (env[name] === '' ? undefined : env[name])
  return {
    url: url.origin,
    apiKey: values['api-key'] ?? fromEnv('API_KEYS')?.split(',')[0]?.trim() ?? DEFAULT_API_KEY,
    adminToken: values['admin-token'] ?? fromEnv('ADMIN_TOKEN') ?? DEFAULT_ADMIN_TOKEN,
    allNamespaces: values['all-namespaces'] === true,
  }
}

/** Serves MCP on stdin/stdout until the client closes stdin. */
export async function serveStdio(target: Target): Promise<void> {
  const [{ StdioServerTransport }, server] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    createMcpServer(target),
  ])
  const closed = new Promise<void>((resolve) => (server.onclose = resolve))
  process.stdin.once('end', () => void server.close())
  await server.connect(new StdioServerTransport())
  process.stderr.write(`animal-store-sandbox mcp: serving MCP on stdio for the sandbox at ${target.url}\n`)
  await closed
}
