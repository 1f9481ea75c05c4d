// The tools are the specs' operations: one each, with the operation's parameters and body as input,
// and what it does read from the operation's `x-mcp`. A spec that gains an operation fails here until
// its `x-mcp` says what its tool does.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { Test } from 'tap'
import t from 'tap'
import { CONTROL_SPEC_FILE, SPEC_FILE } from '../../src/paths.js'
import { operationsOf, readSpecDocument } from '../../src/contract/load.js'
import { createMcpServer } from '../../src/mcp/server.js'
import { loadTools, makeTools, type Tool } from '../../src/mcp/tools.js'
import { tempDir } from '../support/sandbox.js'

const operations = [SPEC_FILE, CONTROL_SPEC_FILE].flatMap((file) =>
  [...operationsOf(readSpecDocument(file))].map(({ operation }) => operation),
)
const operationIds = operations.map((operation) => operation.operationId as string)

t.test('every operation of both specs says what its tool does, and has a tool', async (t) => {
  t.same(
    operations.filter((operation) => operation['x-mcp'] === undefined).map((operation) => operation.operationId),
    [],
    'every operation has an x-mcp',
  )
  const tools = await loadTools()
  t.same(
    tools.map((tool) => tool.name),
    operationIds,
    'one tool per operation, in the specs order',
  )
  t.equal(new Set(tools.map((tool) => tool.name)).size, tools.length, 'no two tools share a name')
})

t.test('a tool takes its operation parameters and body, as the spec gives them', async (t) => {
  const tools = new Map((await loadTools()).map((tool) => [tool.name, tool]))
  const createPet = tools.get('createPet')?.inputSchema as any
  t.same(createPet.required, ['body', 'namespace'], 'createPet needs its body and a namespace')
  t.same(createPet.properties.body.required, ['name', 'categoryId'], 'the body is NewPet')
  const listPets = tools.get('listPets')?.inputSchema as any
  t.same(Object.keys(listPets.properties).sort(), ['limit', 'namespace', 'status'])
  t.equal(listPets.required, undefined, 'a read names no namespace: the default one then')
  t.same((tools.get('getPet')?.inputSchema as any).required, ['petId'])
  const reset = tools.get('reset')?.inputSchema as any
  t.ok(reset.properties.body, 'reset takes its body')
  t.same(reset.required, ['namespace'], 'a tool that destroys data acts on a named namespace')
  t.equal(tools.get('reset')?.effect, 'destroys')
  t.same((tools.get('deleteNamespace')?.inputSchema as any).required, ['name'])
  t.same(Object.keys((tools.get('getCoverage')?.inputSchema as any).properties).sort(), [
    'all',
    'format',
    'namespace',
    'traceId',
  ])
  for (const tool of tools.values()) {
    t.equal(tool.inputSchema['additionalProperties'], false, `${tool.name}: a misspelt argument is refused`)
    if (tool.effect !== 'reads' && (tool.inputSchema as any).properties.namespace)
      t.ok(((tool.inputSchema as any).required as string[]).includes('namespace'), `${tool.name} names its namespace`)
  }
  t.match(tools.get('getPet')?.description, /Deprecated: removed on 2030-12-05/, 'getPet says it is going away')
  t.match(tools.get('listNamespaces')?.description, /refused unless the MCP server was started to allow it/)
})

t.test("tools/list shows each operation's x-mcp as MCP's tool annotations", async (t) => {
  const server = await createMcpServer({
    url: 'http://127.0.0.1:9',
    apiKey: 'k',
    adminToken: 't',
    allNamespaces: false,
  })
  const client = new Client({ name: 'animal-store-tests', version: '1.0.0' })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await Promise.all([server.connect(serverSide), client.connect(clientSide)])
  t.teardown(() => client.close())
  const { tools } = await client.listTools()
  const hints = Object.fromEntries(tools.map(({ name, annotations }) => [name, annotations]))
  const common = { openWorldHint: false }
  t.same(hints['listPets'], {
    ...common,
    title: 'List animals',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
  })
  t.match(hints['createPet'], { ...common, readOnlyHint: false, destructiveHint: false, idempotentHint: false })
  t.match(hints['reset'], { ...common, readOnlyHint: false, destructiveHint: true, idempotentHint: true })
  t.match(hints['addFault'], { ...common, readOnlyHint: false, destructiveHint: false, idempotentHint: false })
  t.match(hints['setClock'], { ...common, readOnlyHint: false, destructiveHint: false, idempotentHint: true })
  t.equal(tools.length, operationIds.length, 'every tool has its hints')
})

/** Both specs copied to a folder of their own, the admin one with `edit` applied to its text. */
async function specCopies(t: Test, edit: (admin: string) => string): Promise<readonly Tool[]> {
  const dir = await tempDir(t)
  const api = join(dir, 'openapi.yaml')
  const admin = join(dir, 'admin.openapi.yaml')
  await writeFile(api, await readFile(SPEC_FILE, 'utf8'))
  const text = await readFile(CONTROL_SPEC_FILE, 'utf8')
  const edited = edit(text)
  t.not(edited, text, 'the copy was changed')
  await writeFile(admin, edited)
  return makeTools(pathToFileURL(api), pathToFileURL(admin))
}

t.test('an operation without x-mcp is served as one that destroys, its namespace required', async (t) => {
  const tools = await specCopies(t, (text) =>
    text.replace(/\n {6}x-mcp: \{ effect: reads \}(?=\n {6}summary: Read a namespace's clock)/, ''),
  )
  const getClock = tools.find((tool) => tool.name === 'getClock')
  t.equal(getClock?.effect, 'destroys')
  t.same((getClock?.inputSchema as any).required, ['namespace'])
})

t.test('a malformed x-mcp is refused, naming the operation and what is wrong', async (t) => {
  await t.rejects(
    specCopies(t, (text) => text.replace('x-mcp: { effect: reads, acrossNamespaces: all }', 'x-mcp: { effect: read }')),
    { message: /^Invalid x-mcp of getCoverage: x-mcp\.effect must be one of: reads, changes, destroys$/ },
  )
  await t.rejects(
    specCopies(t, (text) =>
      text.replace('x-mcp: { effect: reads, acrossNamespaces: all }', 'x-mcp: { effect: reads, acrossNamespace: all }'),
    ),
    { message: /^Invalid x-mcp of getCoverage: x-mcp\.acrossNamespace is not an accepted property$/ },
    'a misspelt key',
  )
  await t.rejects(
    specCopies(t, (text) => text.replace('acrossNamespaces: all }', 'acrossNamespaces: every }')),
    { message: /^Invalid x-mcp of getCoverage: acrossNamespaces names no parameter of it \(every\)/ },
  )
})
