// What an agent does through the tools, over either transport: reset a namespace, create, list,
// arm a 503 and meet it, read the coverage and the journal.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Test } from 'tap'

/** A tool's answer: the sandbox's status, the headers shown and the body; or the message of a refusal. */
interface Answer {
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

export async function theLoop(t: Test, client: Client, namespace: string): Promise<void> {
  // Which tools are listed: tools.test.ts.
  // Each tool is one generic call of its operation (tools.ts): the loop checks what a tool shows
  // of an answer and where it acts. What the control operations do is test/control's and test/journal's.
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
  t.equal(report.complete, false)
  t.match(
    report.message,
    new RegExp(`^listPets \\(GET /v1/pets\\), namespace ${namespace}: never exercised 401$`, 'm'),
    'the message the prompt points to names what was never exercised',
  )
  const journal = await client.readResource({ uri: `animal-store://namespaces/${namespace}/journal` })
  t.ok(JSON.parse((journal.contents[0] as { text: string }).text).count >= 5, 'the journal resource of the namespace')

  await expectTool(t, client, 200, 'deleteNamespace', { name: namespace })

  const prompt = await client.getPrompt({ name: 'test-loop', arguments: { namespace: 'checkout-1' } })
  const steps = (prompt.messages[0]?.content as { text: string }).text
  t.match(steps, /reset.*checkout-1/s, 'the prompt shows the loop')
  t.match(
    steps,
    'reachable documented responses were never exercised (its `message` names them',
    'and the coverage message',
  )
  const { resources } = await client.listResources()
  t.same(
    resources.map((r) => r.uri),
    ['animal-store://spec/openapi.yaml', 'animal-store://spec/admin.openapi.yaml'],
  )
  const spec = await client.readResource({ uri: 'animal-store://spec/admin.openapi.yaml' })
  t.match((spec.contents[0] as { text: string }).text, /operationId: verify/, 'the control API spec is a resource')
}
