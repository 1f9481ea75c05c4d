// The control API answers what spec/admin.openapi.yaml says: every answer of every operation is
// checked against the response schema the spec declares for its status.
import { dereference } from '@apidevtools/json-schema-ref-parser'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { createAjv, readSpecDocument } from '../../src/contract/load.js'
import { ADMIN_SPEC_FILE } from '../../src/paths.js'
import { ADMIN_AUTH, startControlSandbox, type Call } from '../support/control.js'

t.test('every control answer matches the schema its spec declares', async (t) => {
  const path = fileURLToPath(ADMIN_SPEC_FILE)
  const spec = (await dereference(path, readSpecDocument(ADMIN_SPEC_FILE), { resolve: { external: true } })) as Record<
    string,
    any
  >
  const ajv = createAjv()
  const { admin, api } = await startControlSandbox(t)
  const checked = new Set<string>()
  const check = (method: string, route: string, res: Call): void => {
    const responses = spec['paths'][route][method.toLowerCase()].responses
    const declared = responses[String(res.status)]
    t.ok(declared, `${method} ${route} → ${res.status} is declared`)
    const schema = declared?.content?.['application/json']?.schema
    if (!schema) return
    const validate = ajv.compile(schema)
    t.ok(
      validate(res.body),
      `${method} ${route} → ${res.status} matches its schema ${JSON.stringify(validate.errors ?? [])}`,
    )
    checked.add(`${method} ${route}`)
  }
  const run = async (method: string, route: string, query = '', body?: unknown, headers = ADMIN_AUTH): Promise<void> =>
    check(method, route, await admin(method, route + query, body, headers))

  await api('POST', '/pets', { name: 'Rex', categoryId: 1 }, { 'x-sandbox-namespace': 'c' })
  await api('GET', '/nowhere', undefined, { 'x-sandbox-namespace': 'c' })
  await run('POST', '/faults', '?namespace=c', { operationId: 'listPets', status: 500, times: 1 })
  await api('GET', '/pets', undefined, { 'x-sandbox-namespace': 'c' })
  await run('GET', '/requests', '?namespace=c')
  await run('GET', '/requests/unmatched', '?namespace=c')
  await run('DELETE', '/requests', '?namespace=c')
  await run('GET', '/faults', '?namespace=c')
  await run('DELETE', '/faults', '?namespace=c')
  await run('GET', '/pets', '?namespace=c')
  await run('PUT', '/pets', '?namespace=c', [{ id: 1, name: 'A', categoryId: 1 }])
  await run('PUT', '/pets', '?namespace=c', [{ id: 1 }])
  await run('POST', '/reset', '?namespace=c')
  await run('POST', '/reset', '', { count: -1 })
  await run('GET', '/clock', '?namespace=c')
  await run('POST', '/clock', '?namespace=c', { now: '2031-01-01T00:00:00Z' })
  await run('DELETE', '/clock', '?namespace=c')
  await run('GET', '/namespaces')
  await run('GET', '/namespaces', '', undefined, { authorization: 'Bearer wrong' })
  t.equal(checked.size, 13, 'every operation was checked')
})
