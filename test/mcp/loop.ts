// What an agent does through the MCP tools, run over each transport by the SDK's own client: fork a
// namespace, create, list, arm a 503 and meet it, verify, read the coverage.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Test } from 'tap'

/** A tool's answer: the sandbox's status, the headers shown and the body; or the message of a refusal. */
export interface Answer {
  readonly isError: boolean
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly body?: any
  readonly text: string
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
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

/** The loop of test-loop's prompt, in a namespace of its own, forked from a snapshot. */
export async function runLoop(t: Test, client: Client, namespace: string): Promise<void> {
  const { tools } = await client.listTools()
  const names = tools.map((tool) => tool.name)
  for (const name of ['listPets', 'createPet', 'getPet', 'listOrders', 'reset', 'addFault', 'verify', 'getCoverage'])
    t.ok(names.includes(name), `the tool ${name} is listed`)

  // Fork: a snapshot of the default namespace, and a namespace reset to it.
  const snapshot = `${namespace}-base`
  await expectTool(t, client, 201, 'createSnapshot', { body: { name: snapshot } })
  const reset = await expectTool(t, client, 200, 'reset', { namespace, body: { snapshot } })
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

  const verified = await expectTool(t, client, 200, 'verify', {
    namespace,
    body: { expectations: [{ operationId: 'createPet', count: 1, body: { name: 'Agent Smith' } }] },
  })
  t.equal(verified.body.passed, true, 'verify finds the create')
  const unverified = await callTool(client, 'verify', {
    namespace,
    body: { expectations: [{ operationId: 'createPet', count: 2 }] },
  })
  t.equal(unverified.body.passed, false, 'and fails an expectation the calls do not meet')

  const coverage = await expectTool(t, client, 200, 'getCoverage', { namespace })
  const listPets = coverage.body.operations.find((op: { operationId: string }) => op.operationId === 'listPets')
  t.equal(listPets.calls, 3, 'coverage counts the calls of the namespace')

  const fromTemplate = await client.readResource({ uri: `animal-store://namespaces/${namespace}/coverage` })
  const report = JSON.parse((fromTemplate.contents[0] as { text: string }).text)
  t.equal(report.namespace, namespace, 'the coverage resource of the namespace')
  const journal = await client.readResource({ uri: `animal-store://namespaces/${namespace}/journal` })
  t.ok(JSON.parse((journal.contents[0] as { text: string }).text).count >= 5, 'the journal resource of the namespace')

  await expectTool(t, client, 200, 'deleteNamespace', { name: namespace })
}

/** Bad input is a tool error that names the field, and the session goes on. */
export async function badInput(t: Test, client: Client): Promise<void> {
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
}
