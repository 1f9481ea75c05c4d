// The MCP tools, one per operation of both specs: the input is the operation's parameters and body,
// what it does the operation's `x-mcp` in the spec, a call one HTTP request to a running sandbox,
// the result its status, telling headers and body.
import type { RequestInit as UndiciInit } from 'undici'
import { fileURLToPath } from 'node:url'
import type { ValidateFunction } from 'ajv/dist/2020.js'
import { CONTROL_SPEC_FILE, SPEC_FILE } from '../paths.js'
import { basePathOf, createAjv, describeErrors, operationsOf, readSpecDocument } from '../contract/load.js'
import type { JsonSchema } from '../contract/types.js'
import { NAMESPACE_HEADER } from '../namespaces/namespaces.js'

/** What a tool does to the sandbox's data: `changes` and `destroys` need a named namespace. */
type Effect = 'reads' | 'changes' | 'destroys'
type Args = Record<string, unknown>

/** What an operation's tool does, as the operation's `x-mcp` in the spec says. */
export interface ToolRule {
  readonly effect: Effect
  /** Whether a second call with the same arguments changes nothing more. */
  readonly idempotent?: boolean
  /** Every call reaches beyond one namespace (true), or a call with this boolean parameter true does. */
  readonly acrossNamespaces?: boolean | string
}

/** `x-mcp`, checked as a request body is: a misspelt key is refused, not read as no rule. */
const X_MCP = {
  type: 'object',
  required: ['effect'],
  additionalProperties: false,
  properties: {
    effect: { enum: ['reads', 'changes', 'destroys'] },
    idempotent: { type: 'boolean' },
    acrossNamespaces: { anyOf: [{ type: 'boolean' }, { type: 'string' }] },
  },
}

/** An operation without `x-mcp` is served as the most guarded kind until it has one. */
const UNDECIDED: ToolRule = { effect: 'destroys' }

/** The rule of an operation's `x-mcp`; a malformed one throws, naming what is wrong. */
function toolRuleOf(operation: any, parameters: readonly string[], check: ValidateFunction): ToolRule {
  const rule = operation['x-mcp'] as ToolRule | undefined
  if (rule === undefined) return UNDECIDED
  const invalid = `Invalid x-mcp of ${String(operation.operationId)}`
  if (!check(rule)) throw new Error(`${invalid}: ${describeErrors(check.errors, 'x-mcp')}`)
  if (typeof rule.acrossNamespaces === 'string' && !parameters.includes(rule.acrossNamespaces))
    throw new Error(`${invalid}: acrossNamespaces names no parameter of it (${rule.acrossNamespaces})`)
  return rule
}

/** Whether this call of the tool reaches across every namespace. */
function reachesAcross({ acrossNamespaces }: ToolRule, args: Args): boolean {
  return typeof acrossNamespaces === 'string' ? args[acrossNamespaces] === true : acrossNamespaces === true
}

export interface Tool extends ToolRule {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonSchema & { type: 'object' }
  readonly door: 'api' | 'admin'
  readonly method: string
  /** The spec's base path and the operation's path below it, e.g. /v1 and /pets/{petId}. */
  readonly basePath: string
  readonly path: string
  readonly queryParameters: readonly string[]
  readonly validate: ValidateFunction
}

/** Where the tools send their requests, and the credentials they carry. */
export interface Target {
  /** The sandbox's address, e.g. http://127.0.0.1:4010 */
  readonly url: string
  readonly apiKey: string
  readonly adminToken: string | undefined
  /** Whether tools may act across every namespace (those whose x-mcp has acrossNamespaces). */
  readonly allNamespaces: boolean
  /** A certificate to trust besides the system's: the CA of this sandbox's HTTPS. */
  readonly ca?: string | undefined
}

/** What MCP's CallToolResult carries: the sandbox's answer when it gave one. */
export interface ToolResult {
  readonly content: Array<{ type: 'text'; text: string }>
  readonly structuredContent?: { status: number; headers: Record<string, string>; body: unknown }
  readonly isError?: boolean
  readonly [key: string]: unknown
}

/** The headers a result shows: where a new pet is, deprecation and sunset, auth and retry hints. */
const HEADERS_SHOWN = ['location', 'deprecation', 'sunset', 'link', 'retry-after', 'www-authenticate', 'allow']

/** A tool call waits this long for the sandbox (a fault's delay included). */
const CALL_TIMEOUT_MS = 60_000

let loaded: Promise<readonly Tool[]> | undefined

/** The tools of both specs, made once per process. */
export function loadTools(): Promise<readonly Tool[]> {
  return (loaded ??= makeTools())
}

/** The tools of the two spec files given (copies in tests). */
export async function makeTools(apiFile = SPEC_FILE, controlFile = CONTROL_SPEC_FILE): Promise<readonly Tool[]> {
  const { dereference } = await import('@apidevtools/json-schema-ref-parser')
  const read = async (file: URL): Promise<Record<string, any>> =>
    dereference(fileURLToPath(file), readSpecDocument(file), { resolve: { external: true } })
  const [api, admin] = await Promise.all([read(apiFile), read(controlFile)])
  // An API call names its namespace as a control call does: the control API's parameter says how.
  const namespaceSchema = admin['components'].parameters.Namespace.schema
  const ajv = createAjv()
  const checkRule = ajv.compile(X_MCP)
  const tools: Tool[] = []
  for (const [door, document] of [
    ['api', api],
    ['admin', admin],
  ] as const) {
    for (const { path, method, pathItem, operation } of operationsOf(document)) {
      const operationId = operation.operationId as string
      const parameters = [...(pathItem['parameters'] ?? []), ...(operation.parameters ?? [])].filter(
        (p: any) => p.in === 'path' || p.in === 'query',
      )
      const rule = toolRuleOf(
        operation,
        parameters.map((p: any) => p.name),
        checkRule,
      )
      const properties: Record<string, JsonSchema> = {}
      const required: string[] = []
      for (const p of parameters) {
        properties[p.name] = { ...p.schema, ...(p.description ? { description: p.description } : {}) }
        if (p.in === 'path' || p.required === true) required.push(p.name)
      }
      if (door === 'api')
        properties['namespace'] = {
          ...namespaceSchema,
          description: `The namespace the call is made in (sent as ${NAMESPACE_HEADER}); the default namespace when omitted.`,
        }
      const body = operation.requestBody?.content?.['application/json']?.schema
      if (body !== undefined) {
        properties['body'] = { ...body, description: operation.requestBody.description ?? 'The request body.' }
        if (operation.requestBody.required === true) required.push('body')
      }
      // A tool that changes data never falls back on the default namespace: it must be named.
      if (rule.effect !== 'reads' && properties['namespace'] !== undefined) {
        required.push('namespace')
        properties['namespace'] = { ...properties['namespace'], description: 'The namespace to act on.' }
      }
      const inputSchema = {
        type: 'object' as const,
        properties,
        ...(required.length > 0 ? { required } : {}),
        additionalProperties: false,
      }
      tools.push({
        ...rule,
        name: operationId,
        title: operation.summary ?? operationId,
        description: describe(operation, rule, door),
        inputSchema,
        door,
        method: method.toUpperCase(),
        basePath: basePathOf(document['servers']),
        path,
        queryParameters: parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name),
        validate: ajv.compile(inputSchema),
      })
    }
  }
  return tools
}

function describe(operation: any, rule: ToolRule, door: Tool['door']): string {
  const lines = [
    `${operation.summary ?? operation.operationId} (${door === 'api' ? 'the Animal Store API' : 'the sandbox control API'}).`,
    operation.description?.trim(),
  ]
  if (operation.deprecated === true)
    lines.push(
      `Deprecated${operation['x-sunset'] ? `: removed on ${String(operation['x-sunset'])}` : ''}${operation['x-replacement'] ? `; use ${String(operation['x-replacement'])} instead` : ''}. Do not build on it.`,
    )
  if (rule.acrossNamespaces)
    lines.push('Reaching across every namespace is refused unless the MCP server was started to allow it.')
  return lines.filter(Boolean).join('\n\n')
}

/** Calls the tool on the sandbox. Never throws: every failure is a result with isError. */
export async function callTool(tool: Tool, input: unknown, target: Target): Promise<ToolResult> {
  const args = (input ?? {}) as Args
  // Validated on a copy: defaults the schema fills in are the sandbox's to apply, not ours to send.
  if (!tool.validate(structuredClone(args)))
    return toolError(`Invalid arguments for ${tool.name}: ${describeErrors(tool.validate.errors, 'arguments')}`)
  if (reachesAcross(tool, args) && !target.allNamespaces)
    return toolError(
      `${tool.name}${typeof tool.acrossNamespaces === 'string' ? ` with ${tool.acrossNamespaces}=true` : ''} reaches across every namespace, which this MCP server does not allow: name one namespace, or start the server with --all-namespaces (MCP_ALL_NAMESPACES=true for /mcp)`,
    )

  const path = tool.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(args[name])))
  const url = new URL(`${target.url.replace(/\/$/, '')}${tool.basePath}${path}`)
  for (const name of tool.queryParameters) if (args[name] !== undefined) url.searchParams.set(name, String(args[name]))
  const credential = tool.door === 'api' ? target.apiKey : target.adminToken
  const headers: Record<string, string> = { accept: 'application/json, text/markdown;q=0.9' }
  if (credential !== undefined) headers['authorization'] = `Bearer ${credential}`
  if (tool.door === 'api' && typeof args['namespace'] === 'string') headers[NAMESPACE_HEADER] = args['namespace']
  if (args['body'] !== undefined) headers['content-type'] = 'application/json'

  let response: Response
  try {
    response = await (target.ca === undefined ? fetch : await fetchTrusting(target.ca))(url, {
      method: tool.method,
      headers,
      ...(args['body'] === undefined ? {} : { body: JSON.stringify(args['body']) }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
    return toolError(`The sandbox at ${target.url} did not answer ${tool.method} ${url.pathname}: ${reason}`)
  }
  const text = await response.text()
  const json = (response.headers.get('content-type') ?? '').includes('json')
  let body: unknown = text
  if (json && text !== '')
    try {
      body = JSON.parse(text)
    } catch {
      // Kept as text: a body that is not the JSON it claims is itself worth seeing.
    }
  const shown = Object.fromEntries(
    HEADERS_SHOWN.flatMap((name) => {
      const value = response.headers.get(name)
      return value === null ? [] : [[name, value]]
    }),
  )
  const answer = { status: response.status, headers: shown, body }
  return {
    content: [{ type: 'text', text: JSON.stringify(answer, null, 2) }],
    structuredContent: answer,
    ...(response.ok ? {} : { isError: true }),
  }
}

let trusting: { readonly ca: string; readonly fetch: typeof fetch } | undefined

/** A fetch that trusts `ca`, which Node's own cannot be told; undici is loaded only for HTTPS. */
async function fetchTrusting(ca: string): Promise<typeof fetch> {
  if (trusting?.ca !== ca) {
    const undici = await import('undici')
    // A certificate brought with TLS_CERT is trusted as itself, for localhost, as the health check does.
    const dispatcher = new undici.Agent({ connect: { ca, allowPartialTrustChain: true, servername: 'localhost' } })
    const send = (input: URL, init: RequestInit): Promise<Response> =>
      undici.fetch(input, { ...(init as UndiciInit), dispatcher }) as unknown as Promise<Response>
    trusting = { ca, fetch: send as typeof fetch }
  }
  return trusting.fetch
}

function toolError(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}
