// The spec is the single source of truth: it must lint clean, and the server must follow it.
import t from 'tap'
import { loadSpec } from '../../src/contract/load.js'
import { handlers } from '../../src/api/operations.js'
import { redoclyLint } from '../support/sandbox.js'

t.test('spec/openapi.yaml passes Redocly lint with no problems', async (t) => {
  const lint = await redoclyLint('spec/openapi.yaml')
  t.equal(lint.code, 0, lint.output)
  t.notMatch(lint.output, /You have \d+ warnings?/, 'no warnings either')
})

t.test('the spec transcribes the interface', async (t) => {
  const spec = await loadSpec()
  t.equal(spec.basePath, '/v1', 'both servers end with /v1')
  t.same((spec.document['servers'] as unknown[]).length, 2, 'production and staging')
  const ops = Object.fromEntries(spec.operations.map((op) => [op.operationId, op]))
  t.same(Object.keys(ops).sort(), ['createPet', 'getPet', 'listOrders', 'listPets'])
  t.same(
    Object.keys(ops).sort(),
    Object.keys(handlers).sort(),
    'every operation has a handler and no handler lacks an operation',
  )
  t.ok(
    spec.operations.every((op) => op.secured),
    'bearer security on every operation',
  )
  t.equal(ops['getPet']?.deprecated, true)
  t.equal(ops['getPet']?.sunset?.toISOString(), '2030-12-05T00:00:00.000Z')
  t.same(ops['listPets']?.responses, ['200', '401'])
  t.same(ops['createPet']?.responses, ['201', '400', '401'])
  t.same(ops['getPet']?.responses, ['200', '401', '404'])
  const limit = ops['listPets']?.parameters.find((p) => p.name === 'limit')?.schema
  t.match(limit, { type: 'integer', minimum: 1, maximum: 100, default: 20 })
  t.same((spec.schemas['PetStatus'] as { enum: string[] }).enum, ['available', 'pending', 'sold'])
})
