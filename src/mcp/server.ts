// The MCP server both transports serve: the tools (tools.ts), the specs and a namespace's coverage and
// journal as resources, prompts for a test's loop. The SDK is loaded on first use only.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CONTROL_SPEC_FILE, PACKAGE_ROOT, SPEC_FILE } from '../paths.js'
import { MAX_JSON_DEPTH } from '../http/body.js'
import { loadHandle } from './params.js'
import { callTool, loadTools, type Target, type Tool } from './tools.js'

const SPEC_RESOURCES = [
  { uri: 'animal-store://spec/openapi.yaml', name: 'openapi.yaml', file: SPEC_FILE, title: 'The Animal Store API' },
  {
    uri: 'animal-store://spec/admin.openapi.yaml',
    name: 'admin.openapi.yaml',
    file: CONTROL_SPEC_FILE,
    title: 'The sandbox control API',
  },
] as const

/** A namespace's reports, read through the tool of the same facts. */
const TEMPLATES = [
  {
    uriTemplate: 'animal-store://namespaces/{namespace}/coverage',
    name: 'coverage',
    title: 'Coverage of a namespace',
    description: 'What the requests of the namespace covered of the contract (the getCoverage report).',
    tool: 'getCoverage',
  },
  {
    uriTemplate: 'animal-store://namespaces/{namespace}/journal',
    name: 'journal',
    title: 'Journal of a namespace',
    description: 'The requests the namespace received, oldest first (the first page of listRequests).',
    tool: 'listRequests',
  },
] as const

const PROMPTS = [
  {
    name: 'test-loop',
    title: 'Fork, exercise, verify',
    description: 'The loop of an integration test against the sandbox, in a namespace of its own.',
    arguments: [
      { name: 'namespace', description: 'A namespace for this test alone, e.g. checkout-1', required: true },
      { name: 'operation', description: 'The API operation under test (default: createPet)', required: false },
    ],
    text: ({ namespace, operation = 'createPet' }: Record<string, string | undefined>) =>
      [
        `Work in the namespace "${namespace}" only, so that no other test sees or disturbs its data.`,
        `1. Fork: \`reset\` with namespace "${namespace}" starts it from the initial data (or from a snapshot: \`createSnapshot\` of a prepared namespace, then \`reset\` with body {"snapshot": "<name>"}). \`setClock\` pins the time when dates matter.`,
        `2. Exercise: call \`${operation}\` and the other API tools with namespace "${namespace}", as the code under test would. \`getPet\` is deprecated (see its Deprecation and Sunset headers): build on \`listPets\` instead.`,
        `3. Failures: \`addFault\` with namespace "${namespace}" and a body such as {"operationId": "${operation}", "status": 503, "times": 1} makes the next call fail; call again and see the 503 and its Error body.`,
        `4. Verify: \`verify\` with namespace "${namespace}" and the calls the test expects (operationId, count or min/max, body); \`listRequests\` shows what was sent when it fails.`,
        `5. Coverage: \`getCoverage\` with namespace "${namespace}" says which reachable documented responses were never exercised (its \`message\` names them; \`complete\` is true when none is left): write tests for those. Those only malformed HTTP or JSON causes (\`reachable: false\`) are shown apart and need none.`,
        `6. Clean up: \`deleteNamespace\` with name "${namespace}".`,
      ].join('\n'),
  },
  {
    name: 'explain-failure',
    title: 'Why did a call fail?',
    description: 'Reads what a namespace received and answered, to explain a failing integration test.',
    arguments: [{ name: 'namespace', description: 'The namespace the failing test used', required: true }],
    text: ({ namespace }: Record<string, string | undefined>) =>
      [
        `A test using the namespace "${namespace}" failed. Find out why, from the sandbox's own records:`,
        `1. \`listRequests\` with namespace "${namespace}": each request with its status, error code and message, and whether a fault answered it.`,
        `2. \`listUnmatchedRequests\` with namespace "${namespace}": calls to paths or methods the contract lacks (a wrong URL in the code under test).`,
        `3. \`listFaults\` and \`getClock\` with namespace "${namespace}": faults still armed, a clock moved.`,
        '4. Compare with the contract (the resource animal-store://spec/openapi.yaml) and say which side is wrong: the code, the test or its expectations.',
      ].join('\n'),
  },
] as const

const PACKAGE = JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as {
  name: string
  version: string
}

/** A server for one connection (stdio) or one request (/mcp), calling the sandbox at `target`. */
export async function createMcpServer(target: Target): Promise<Server> {
  const [{ Server }, types, { UriTemplate }, tools, handle] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/uriTemplate.js'),
    loadTools(),
    loadHandle(),
  ])
  const { McpError, ErrorCode } = types
  const byName = new Map<string, Tool>(tools.map((tool) => [tool.name, tool]))
  const server = new Server(
    { name: PACKAGE.name, version: PACKAGE.version, title: 'Animal Store sandbox' },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        'Drives an Animal Store sandbox: the API (listPets, createPet, getPet, listOrders) and its control API (namespaces, snapshots, faults, clock, journal, coverage, verify). Give every call the namespace of your test; the prompt test-loop shows the usual loop.',
    },
  )

  handle(server, types.ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, title, description, inputSchema, effect, idempotent = false }) => ({
      name,
      title,
      description,
      inputSchema,
      // The effect of the operation's x-mcp, as the hints of MCP's ToolAnnotations say it.
      annotations: {
        title,
        readOnlyHint: effect === 'reads',
        destructiveHint: effect === 'destroys',
        idempotentHint: effect === 'reads' || idempotent,
        openWorldHint: false,
      },
    })),
  }))
  handle(server, types.CallToolRequestSchema, async ({ params }) => {
    const tool = byName.get(params.name)
    if (tool === undefined)
      throw new McpError(ErrorCode.InvalidParams, `No tool ${JSON.stringify(params.name)}: tools/list names them`)
    const deep = Object.entries(params.arguments ?? {}).find(([, value]) => nestsDeeper(value, MAX_JSON_DEPTH))
    if (deep !== undefined)
      return {
        content: [
          {
            type: 'text' as const,
            text: `Invalid arguments for ${tool.name}: arguments.${deep[0]} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the most the sandbox reads`,
          },
        ],
        isError: true,
      }
    return callTool(tool, params.arguments, target)
  })

  handle(server, types.ListResourcesRequestSchema, () => ({
    resources: SPEC_RESOURCES.map(({ file, ...resource }) => ({ ...resource, mimeType: 'application/yaml' })),
  }))
  handle(server, types.ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: TEMPLATES.map(({ tool, ...template }) => ({ ...template, mimeType: 'application/json' })),
  }))
  handle(server, types.ReadResourceRequestSchema, async ({ params: { uri } }) => {
    const spec = SPEC_RESOURCES.find((resource) => resource.uri === uri)
    if (spec !== undefined)
      return { contents: [{ uri, mimeType: 'application/yaml', text: await readFile(spec.file, 'utf8') }] }
    for (const template of TEMPLATES) {
      const match = new UriTemplate(template.uriTemplate).match(uri)
      const tool = byName.get(template.tool)
      if (match === null || tool === undefined) continue
      const result = await callTool(tool, { namespace: String(match['namespace']) }, target)
      if (result.isError === true) throw new McpError(ErrorCode.InvalidParams, result.content[0]?.text ?? uri)
      const { body } = result.structuredContent as { body: unknown }
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] }
    }
    throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}`)
  })

  handle(server, types.ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map(({ text, ...prompt }) => ({ ...prompt, arguments: [...prompt.arguments] })),
  }))
  handle(server, types.GetPromptRequestSchema, ({ params }) => {
    const prompt = PROMPTS.find(({ name }) => name === params.name)
    if (prompt === undefined) throw new McpError(ErrorCode.InvalidParams, `No prompt ${JSON.stringify(params.name)}`)
    const args = params.arguments ?? {}
    const missing = prompt.arguments.find((a) => a.required && !args[a.name])
    if (missing !== undefined)
      throw new McpError(ErrorCode.InvalidParams, `The prompt ${prompt.name} needs the argument ${missing.name}`)
    return {
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(args) } }],
    }
  })
  return server
}

/**
 * Whether `value` nests arrays and objects more than `levels` deep. Checked before anything walks
 * the arguments (validation, a copy, JSON text), whose recursion a few thousand levels overflow.
 * Its own recursion stops at the bound.
 */
function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (levels === 0) return true
  return Object.values(value).some((inner) => nestsDeeper(inner, levels - 1))
}
