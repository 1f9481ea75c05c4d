// The sandbox against its own contract: every case of conformance/cases.ts through Prism, and
// every response the spec documents exercised at least once.
import t from 'tap'
import { CASES } from '../../conformance/cases.js'
import { documentedResponses, keyOf, missingResponses, responseKeyFor } from '../../conformance/coverage.js'
import { runConformance } from '../../conformance/run.js'
import { readSpecDocument } from '../../src/contract/load.js'
import { API_KEY, startTestSandbox } from '../support/sandbox.js'

t.test('the sandbox conforms: no case fails, no Prism violation, every documented response exercised', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const report = await runConformance({ baseUrl, apiKey: API_KEY })
  for (const result of report.results) {
    t.same(
      result.problems,
      [],
      `${result.case.operationId} ${result.case.status}: ${result.case.intent} [${result.via}]`,
    )
  }
  t.same(report.missing.map(keyOf), [], 'every (operation, status) of the spec is exercised')
  t.equal(report.results.length, CASES.length, 'every case ran')
  t.ok(report.ok, 'the report says the run passed')
  if (!report.ok) t.comment(report.summary)
})

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
