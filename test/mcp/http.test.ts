// /mcp: the MCP server on the sandbox itself, over streamable HTTP, reached by the SDK's own client
// and guarded as the control API is. What an agent does through the tools: reset a namespace,
// create, list, arm a 503 and meet it, read the coverage and the journal.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Test } from 'tap'
import t from 'tap'
import { rawExchange } from '../../scripts/lib/raw-http.js'
import { ADMIN_AUTH, ADMIN_TOKEN, startControlSandbox } from '../support/control.js'
import { startTestSandbox } from '../support/sandbox.js'

/** A tool's answer: the sandbox's status, the headers shown and the body; or the message of a refusal. */
interface Answer {
  readonly isError: boolean
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly body?: any
  readonly text: string
}

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args })
  const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? ''
  const answer = result.structuredContent as { status: number; headers: Record<string, string>; body: any } | undefined
  return { isError: result.isError === true, text, ...answer }
}

/** Calls a tool and asserts the sandbox's status, showing the answer when it differs. */
async function expectTool(t: Test, client: Client, status: number, name: string, args: Record<string, unknown>) {
  const answer = await callTool(client, name, args)
  t.equal(answer.status, status, `${name} answers ${status}`, { text: answer.text })
  return answer
}

async function connect(t: Test, origin: string, headers: Record<string, string> = ADMIN_AUTH): Promise<Client> {
  const client = new Client({ name: 'animal-store-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit: { headers } }))
  t.teardown(() => client.close())
  return client
}

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
  const sandbox = await startControlSandbox(t)
  const client = await connect(t, sandbox.origin)
  const namespace = 'mcp-http'
  // Which tools there are: tools.test.ts.
  const { tools } = await client.listTools()
  t.ok(
    tools.some((tool) => tool.name === 'createPet' && tool.annotations?.readOnlyHint === false),
    'tools/list names them',
  )
  // Each tool is one generic call of its operation (tools.ts): the loop checks what a tool shows
  // of an answer and where it acts. What the control operations do is test/control's.
  const reset = await expectTool(t, client, 200, 'reset', { namespace, body: { seed: 3, count: 4 } })
  t.equal(reset.body.namespace, namespace)

  const pet = await expectTool(t, client, 201, 'createPet', { namespace, body: { name: 'Agent Smith', categoryId: 1 } })
  t.match(pet.headers?.['location'], /\/v1\/pets\/\d+$/, 'the Location of the new pet is shown')
  const list = await expectTool(t, client, 200, 'listPets', { namespace, limit: 100 })
  t.ok(
    list.body.some((p: { id: number }) => p.id === pet.body.id),
    'the new pet is listed in its namespace',
  )
  const elsewhere = await callTool(client, 'listPets', { limit: 100 })
  t.notOk(
    elsewhere.body.some((p: { name: string }) => p.name === 'Agent Smith'),
    'and not in the default namespace',
  )

  const old = await expectTool(t, client, 200, 'getPet', { namespace, petId: pet.body.id })
  t.ok(old.headers?.['deprecation'], 'getPet shows its Deprecation header')
  t.match(old.headers?.['sunset'], /05 Dec 2030/, 'and its Sunset, 2030-12-05')

  await expectTool(t, client, 201, 'addFault', {
    namespace,
    body: { operationId: 'listPets', status: 503, times: 1 },
  })
  const failed = await callTool(client, 'listPets', { namespace })
  t.equal(failed.isError, true, 'the 503 is a tool error')
  t.equal(failed.status, 503)
  t.match(failed.body, { status: 503, code: String, message: String }, 'carrying the Error body')
  const again = await callTool(client, 'listPets', { namespace })
  t.equal(again.status, 200, 'the fault fired once')

  const fromTemplate = await client.readResource({ uri: `animal-store://namespaces/${namespace}/coverage` })
  const report = JSON.parse((fromTemplate.contents[0] as { text: string }).text)
  t.equal(report.namespace, namespace, 'the coverage resource of the namespace')
  const listPets = report.operations.find((op: { operationId: string }) => op.operationId === 'listPets')
  t.equal(listPets.calls, 3, 'counts the calls of the namespace')
  const journal = await client.readResource({ uri: `animal-store://namespaces/${namespace}/journal` })
  t.ok(JSON.parse((journal.contents[0] as { text: string }).text).count >= 5, 'the journal resource of the namespace')

  await expectTool(t, client, 200, 'deleteNamespace', { name: namespace })

  const prompt = await client.getPrompt({ name: 'test-loop', arguments: { namespace: 'checkout-1' } })
  t.match((prompt.messages[0]?.content as { text: string }).text, /reset.*checkout-1/s, 'the prompt shows the loop')
  const { resources } = await client.listResources()
  t.same(
    resources.map((r) => r.uri),
    ['animal-store://spec/openapi.yaml', 'animal-store://spec/admin.openapi.yaml'],
  )
  const spec = await client.readResource({ uri: 'animal-store://spec/admin.openapi.yaml' })
  t.match((spec.contents[0] as { text: string }).text, /operationId: verify/, 'the control API spec is a resource')
})

t.test('bad input over /mcp is a tool error naming the field', async (t) => {
  const sandbox = await startControlSandbox(t)
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

t.test('/mcp is guarded as the control API is', async (t) => {
  const sandbox = await startControlSandbox(t)
  const none = await post(sandbox.origin, {})
  t.equal(none.status, 401, 'no admin token: 401')
  t.match(await none.json(), { code: 'unauthorized', status: 401 }, 'with the Error body')
  t.match(none.headers.get('www-authenticate'), /animal-store-admin/)
  const apiKey = await post(sandbox.origin, { authorization: 'Bearer test-key-1' })
  t.equal(apiKey.status, 401, 'an API key does not open it')
  const wrong = await post(sandbox.origin, { authorization: `Bearer ${ADMIN_TOKEN}x` })
  t.equal(wrong.status, 401, 'nor a wrong token')
  const right = await post(sandbox.origin, ADMIN_AUTH)
  t.equal(right.status, 200, 'the admin token does')
  t.match(await right.json(), { result: { serverInfo: { name: 'animal-store-sandbox' } } })
  const get = await fetch(`${sandbox.origin}/mcp`, { headers: ADMIN_AUTH })
  t.equal(get.status, 405, 'no stream by GET: stateless')
  t.equal(get.headers.get('allow'), 'POST')
  await t.rejects(connect(t, sandbox.origin, {}), 'the SDK client is refused without the token')
})

t.test('with the default token, /mcp answers only its own names and loopback', async (t) => {
  const sandbox = await startTestSandbox(t)
  const answer = await rawExchange(Number(new URL(sandbox.origin).port), {
    method: 'POST',
    target: '/mcp',
    headers: [
      ['Host', 'rebound.example'],
      ['Authorization', 'Bearer sandbox-admin-token'],
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json, text/event-stream'],
    ],
    body: JSON.stringify(INITIALIZE),
  })
  t.equal(answer?.status, 421, 'a Host the sandbox does not serve is refused (DNS rebinding)')
  const own = await post(sandbox.origin, { authorization: 'Bearer sandbox-admin-token' })
  t.equal(own.status, 200, 'its own name is served')
})

// Off however the control API is off (ADMIN=off, or HOST beyond loopback without ADMIN_TOKEN: one
// setting in the config, test/hardening/origins.test.ts).
t.test('/mcp is off while the control API is', async (t) => {
  const sandbox = await startTestSandbox(t, { ADMIN: 'off' })
  const answer = await post(sandbox.origin, { authorization: 'Bearer sandbox-admin-token' })
  t.equal(answer.status, 404, 'no /mcp')
  t.match(await answer.json(), { code: 'not_found', status: 404 })
})
