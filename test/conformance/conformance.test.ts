// The coverage guard: every response the spec documents is exercised by a case of
// conformance/cases.ts. The run of every case through Prism is conformance-cli.test.ts.
import t from 'tap'
import { CASES } from '../../conformance/cases.js'
import { documentedResponses, keyOf, missingResponses, responseKeyFor } from '../../conformance/coverage.js'
import { readSpecDocument } from '../../src/contract/load.js'

t.test('coverage guard: a response added to the spec without a case is reported as never exercised', async (t) => {
  const document = readSpecDocument()
  const exercised = CASES.flatMap((c) => responseKeyFor(document, c.operationId, c.status) ?? [])
  t.same(missingResponses(documentedResponses(document), exercised).map(keyOf), [], 'the cases cover the spec as it is')

  const grown = structuredClone(document) as Record<string, any>
  grown['paths']['/pets']['post'].responses['409'] = { description: 'A pet with that name exists.' }
  t.same(missingResponses(documentedResponses(grown), exercised).map(keyOf), ['createPet 409'])
})

t.test('coverage guard: listOrders has only `default`, which any undeclared status falls under', async (t) => {
  const document = readSpecDocument()
  t.same(responseKeyFor(document, 'listOrders', 401), { operationId: 'listOrders', response: 'default' })
  t.same(responseKeyFor(document, 'listOrders', 501), { operationId: 'listOrders', response: 'default' })
  t.equal(
    responseKeyFor(document, 'listPets', 400),
    undefined,
    'listPets has no default: its 400 is beyond the contract',
  )
})
