// /mcp: the MCP server on the sandbox itself, over streamable HTTP, reached by the SDK's own client
// and guarded as the control API is.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Test } from 'tap'
import { Agent, fetch as undiciFetch, type RequestInit as UndiciInit } from 'undici'
import t from 'tap'
import { ADMIN_AUTH, startControlSandbox } from '../support/control.js'
import { callTool, theLoop } from './loop.js'
import { startTestSandbox } from '../support/sandbox.js'

// One sandbox for the tests that need no setting of their own, each in its own namespace.
const sandbox = await startControlSandbox(t)

async function connect(t: Test, origin: string, headers: Record<string, string> = ADMIN_AUTH): Promise<Client> {
  const client = new Client({ name: 'animal-store-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit: { headers } }))
  t.teardown(() => client.close())
  return client
}

t.test('/mcp over HTTPS: the tools reach the sandbox trusting the CA it made', async (t) => {
  const sandbox = await startControlSandbox(t, { TLS: 'auto' })
  const ca = sandbox.tlsCa ?? ''
  const dispatcher = new Agent({ connect: { ca } })
  t.teardown(() => dispatcher.close())
  const trusting = ((url: URL, init: RequestInit) =>
    undiciFetch(url, { ...(init as UndiciInit), dispatcher })) as unknown as typeof fetch
  const client = new Client({ name: 'animal-store-tests', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', sandbox.origin), {
    requestInit: { headers: ADMIN_AUTH },
    fetch: trusting,
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  const pet = await callTool(client, 'getPet', { petId: 1 })
  t.equal(pet.status, 200, 'an API tool, over HTTPS')
  const served = await callTool(client, 'getTlsCa', {})
  t.equal(served.status, 200, 'a control tool, over HTTPS')
  t.equal(served.body, ca, 'the CA the sandbox made')
})

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
}

function post(origin: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(INITIALIZE),
  })
}

t.test('the loop over /mcp: reset, create, list, a 503, coverage and journal', async (t) => {
  await theLoop(t, await connect(t, sandbox.origin), 'mcp-http')
})

t.test('bad input over /mcp is a tool error naming the field', async (t) => {
  const client = await connect(t, sandbox.origin)
  const noNamespace = await callTool(client, 'reset', {})
  t.equal(noNamespace.isError, true)
  t.match(noNamespace.text, /arguments\.namespace is required/, 'a change needs a named namespace')
  const noName = await callTool(client, 'createPet', { namespace: 'bad-input', body: { categoryId: 1 } })
  t.equal(noName.isError, true)
  t.match(noName.text, /arguments\.body\.name is required/, 'the missing field is named')
  const wrongType = await callTool(client, 'listPets', { limit: 'many' })
  t.match(wrongType.text, /arguments\.limit must be an integer/, 'a wrong type is named')
  const unknown = await callTool(client, 'listPets', { limt: 5 })
  t.match(unknown.text, /arguments\.limt is not an accepted property/, 'a misspelt argument is named')
  const across = await callTool(client, 'getCoverage', { all: true })
  t.equal(across.isError, true, 'no tool reaches across namespaces unless allowed')
  t.match(across.text, /--all-namespaces/)
  const missing = await callTool(client, 'deleteNamespace', { name: 'never-made' })
  t.equal(missing.isError, true)
  t.equal(missing.status, 404, "the sandbox's own refusal is a tool error")
  t.match(missing.body, { code: 'not_found', status: 404 })
  const still = await callTool(client, 'listPets', { limit: 1 })
  t.equal(still.status, 200, 'the session goes on')
})

t.test('MCP_ALL_NAMESPACES lets the tools reach across namespaces', async (t) => {
  const sandbox = await startControlSandbox(t, { MCP_ALL_NAMESPACES: 'true' })
  const client = await connect(t, sandbox.origin)
  await callTool(client, 'setClock', { namespace: 'across-1', body: { now: '2030-01-01T00:00:00Z' } })
  const namespaces = await callTool(client, 'listNamespaces')
  t.equal(namespaces.status, 200, 'listNamespaces answers', { text: namespaces.text })
  t.ok(
    namespaces.body.namespaces.some((ns: { name: string }) => ns.name === 'across-1'),
    'every namespace is listed',
  )
  const all = await callTool(client, 'getCoverage', { all: true })
  t.equal(all.status, 200, 'getCoverage all=true answers', { text: all.text })
  t.equal(all.body.namespace, null, 'the report spans every namespace')
})

// The same guard as the control API's (its token, its Host names: test/hardening/origins.test.ts).
t.test('/mcp is guarded as the control API is', async (t) => {
  const none = await post(sandbox.origin, {})
  t.equal(none.status, 401, 'no admin token: 401')
  t.match(await none.json(), { code: 'unauthorized', status: 401 }, 'with the Error body')
  t.match(none.headers.get('www-authenticate'), /animal-store-admin/)
  const right = await post(sandbox.origin, ADMIN_AUTH)
  t.equal(right.status, 200, 'the admin token does')
  t.match(await right.json(), { result: { serverInfo: { name: 'animal-store-sandbox' } } })
  const get = await fetch(`${sandbox.origin}/mcp`, { headers: ADMIN_AUTH })
  t.equal(get.status, 405, 'no stream by GET: stateless')
  t.equal(get.headers.get('allow'), 'POST')
  await t.rejects(connect(t, sandbox.origin, {}), 'the SDK client is refused without the token')
})

// Off however the control API is off (ADMIN=off, or HOST beyond loopback without ADMIN_TOKEN: one
// setting in the config, test/hardening/origins.test.ts).
t.test('/mcp is off while the control API is', async (t) => {
  const sandbox = await startTestSandbox(t, { ADMIN: 'off' })
  const answer = await post(sandbox.origin, { authorization: 'Bearer sandbox-admin-token' })
  t.equal(answer.status, 404, 'no /mcp')
  t.match(await answer.json(), { code: 'not_found', status: 404 })
})

// DNS rebinding and pages of other sites: the MCP specification's streamable HTTP transport says a
// server must check Origin and answer 403 to one it does not accept.
t.test('/mcp answers 403 to an Origin it does not accept, with the Error body', async (t) => {
  const sandbox = await startControlSandbox(t, { ADMIN_CORS_ORIGINS: 'http://localhost:3000' })
  for (const origin of ['http://evil.example', 'null', 'http://localhost:3001']) {
    const answer = await post(sandbox.origin, { ...ADMIN_AUTH, origin })
    t.equal(answer.status, 403, `Origin: ${origin} is refused`)
    t.match(await answer.json(), { code: 'forbidden_origin', status: 403, message: /origin "?(http|null)/ })
  }
  const accepted = {
    'no Origin (a client that is no browser)': {},
    'the sandbox’s own origin': { origin: sandbox.origin },
    'an origin ADMIN_CORS_ORIGINS names': { origin: 'http://localhost:3000' },
  }
  for (const [what, headers] of Object.entries(accepted)) {
    const answer = await post(sandbox.origin, { ...ADMIN_AUTH, ...headers })
    t.equal(answer.status, 200, what)
    t.match(await answer.json(), { result: { serverInfo: { name: 'animal-store-sandbox' } } })
  }
})

t.test('ADMIN_CORS_ORIGINS=* lets any Origin reach /mcp, as it lets any reach the control API', async (t) => {
  const sandbox = await startControlSandbox(t, { ADMIN_CORS_ORIGINS: '*' })
  t.equal((await post(sandbox.origin, { ...ADMIN_AUTH, origin: 'http://evil.example' })).status, 200)
})

/** `{"a":{"a":…{"a":1}}}`, `depth` objects deep: as text, which JSON.stringify of so deep a value overflows. */
const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{"a":1}${'}'.repeat(depth - 1)}`

t.test('arguments nested deeper than the bound are a tool error naming it, not a stack message', async (t) => {
  const createPet = (tags: string) =>
    fetch(`${sandbox.origin}/mcp`, {
      method: 'POST',
      headers: { ...ADMIN_AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"createPet","arguments":{"namespace":"deep","body":{"name":"Deep","categoryId":1,"tags":${tags}}}}}`,
    })
  for (const depth of [129, 5_000]) {
    const answer = await createPet(nested(depth))
    t.equal(answer.status, 200)
    const { result } = (await answer.json()) as { result: { isError: boolean; content: Array<{ text: string }> } }
    t.equal(result.isError, true, `${depth} levels: a tool error`)
    t.match(
      result.content[0]?.text,
      /arguments\.body nests arrays and objects deeper than 128 levels/,
      'naming the bound',
    )
  }
  const within = await createPet('["friendly"]')
  t.match(await within.json(), { result: { structuredContent: { status: 201 } } }, 'a shallow call is made')
})

// JSON-RPC 2.0 and the MCP specification: invalid method parameters are -32602 (Invalid params), with
// a message naming the parameter, never -32603 (Internal error) with the raw validation text.
t.test('a request with invalid params is -32602 naming the parameter, not an internal error', async (t) => {
  const call = async (method: string, params?: unknown) => {
    const answer = await fetch(`${sandbox.origin}/mcp`, {
      method: 'POST',
      headers: { ...ADMIN_AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, ...(params === undefined ? {} : { params }) }),
    })
    t.equal(answer.status, 200, `${method}: a JSON-RPC answer`)
    return ((await answer.json()) as { error?: { code: number; message: string } }).error
  }
  const invalid: Array<[string, unknown, RegExp]> = [
    [
      'prompts/get',
      { name: 'test-loop', arguments: { namespace: { a: 1 } } },
      /expected string, received object at params\.arguments\.namespace/,
    ],
    ['prompts/get', { name: 5 }, /expected string, received number at params\.name/],
    ['prompts/get', undefined, /params/],
    ['prompts/get', { name: 'no-such-prompt' }, /No prompt "no-such-prompt"/],
    ['prompts/get', { name: 'test-loop', arguments: {} }, /needs the argument namespace/],
    ['prompts/list', { cursor: 5 }, /expected string, received number at params\.cursor/],
    ['resources/read', { uri: 5 }, /expected string, received number at params\.uri/],
    ['resources/read', { uri: 'animal-store://nowhere' }, /No resource animal-store:\/\/nowhere/],
    ['resources/read', { uri: 'animal-store://namespaces/%ZZ/coverage' }, /namespace/],
    ['tools/call', { name: 'noSuchTool' }, /No tool "noSuchTool"/],
  ]
  for (const [method, params, message] of invalid) {
    const error = await call(method, params)
    const what = `${method} ${JSON.stringify(params)}`
    t.equal(error?.code, -32602, `${what}: Invalid params`, { error })
    t.match(error?.message, message, `${what}: names what is wrong`)
    t.notMatch(error?.message, /"code":|\n\s+at |ZodError|\[\s*\{/, `${what}: no raw validation text or stack`)
  }
  // A malformed tools/call the SDK's Server refuses itself, before any handler: -32602 with its issues.
  for (const params of [{ name: 5 }, { name: 'listPets', arguments: 'limit=1' }]) {
    const error = await call('tools/call', params)
    t.equal(error?.code, -32602, `tools/call ${JSON.stringify(params)}: Invalid params`, { error })
    t.match(error?.message, /Invalid tools\/call request/)
  }
})
