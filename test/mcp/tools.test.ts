// The tools are the specs' operations: one each, with the operation's parameters and body as input.
// A spec that gains an operation fails here until TOOL_RULES says what its tool does.
import t from 'tap'
import { ADMIN_SPEC_FILE, SPEC_FILE } from '../../src/paths.js'
import { operationsOf, readSpecDocument } from '../../src/contract/load.js'
import { loadTools, TOOL_RULES } from '../../src/mcp/tools.js'

const operationIds = [SPEC_FILE, ADMIN_SPEC_FILE].flatMap((file) =>
  [...operationsOf(readSpecDocument(file))].map(({ operation }) => operation.operationId as string),
)

t.test('every operation of both specs has a tool, and no tool lacks an operation', async (t) => {
  t.same(Object.keys(TOOL_RULES).sort(), [...operationIds].sort(), 'TOOL_RULES names exactly the specs operations')
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
})
