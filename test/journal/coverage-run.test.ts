// The coverage a suite can trust: every call counted whatever the journal keeps, in the report of
// the run after its namespaces are deleted or evicted; and a verify that cannot be decided from
// what the journal kept says so instead of failing with "found 0".
import t from 'tap'
import { ADMIN_AUTH, ns, startControlSandbox } from '../support/control.js'

interface ResponseRow {
  label: string
  exercised: boolean
  calls: number
}
function rows(report: { operations: Array<{ operationId: string; responses: ResponseRow[] }> }, operationId: string) {
  const op = report.operations.find((o) => o.operationId === operationId)
  return Object.fromEntries((op?.responses ?? []).map((r) => [r.label, r.calls]))
}

t.test('a journal far past JOURNAL_SIZE: coverage and verify still count every call', async (t) => {
  const { api, control } = await startControlSandbox(t, { JOURNAL_SIZE: '10' })
  await api('GET', '/pets/987654') // the 404, soon pushed out of the journal
  for (let i = 0; i < 25; i++) await api('GET', '/store/orders')
  for (let i = 0; i < 5; i++) await api('GET', '/pets')

  const report = (await control('GET', '/coverage?all=true')).body
  t.equal(report.summary.calls, 31)
  t.equal(report.summary.journalDropped, 21, 'the report says how many entries the journal dropped')
  t.same(rows(report, 'listOrders'), { default: 25 })
  t.equal(rows(report, 'getPet')['404'], 1, 'a call the journal no longer holds is still counted')
  t.equal((await control('GET', '/requests')).body.count, 10, 'while the journal keeps its bound')

  const verify = async (body: object) => (await control('POST', '/verify', body)).body
  const accepting = { accept: '*/*' }
  const counted = await verify({ expectations: [{ operationId: 'listOrders', count: 25 }] })
  t.match(counted, { passed: true, incomplete: false, journalDropped: 21 }, 'an operation alone: decided by the counts')
  t.equal(counted.expectations[0].matched, 25)

  const withBody = await verify({ expectations: [{ operationId: 'listOrders', count: 25, headers: accepting }] })
  t.match(withBody, { passed: false, incomplete: true }, 'with headers: what was dropped may match, so undecided')
  t.match(withBody.message, /found \d+ among the entries kept; undecided: the journal dropped 20 calls of listOrders/)
  t.match(withBody.message, /raise JOURNAL_SIZE/)

  const tooMany = await verify({ expectations: [{ operationId: 'listPets', max: 2, headers: accepting }] })
  t.match(tooMany, { passed: false, incomplete: false }, 'failed whatever was dropped: decided')

  const strict = await verify({
    strict: true,
    expectations: ['listOrders', 'listPets'].map((operationId) => ({ operationId, min: 1 })),
  })
  t.match(strict, { passed: false, incomplete: true }, 'strict: what was dropped may hold an unexpected call')

  t.equal((await control('DELETE', '/requests')).body.cleared, 10)
  const cleared = await verify({ strict: true, expectations: [] })
  t.match(cleared, { passed: true, incomplete: false, journalDropped: 0 }, 'a clear makes the journal whole again')
  const run = (await control('GET', '/coverage?all=true')).body
  t.equal(run.summary.calls, 31, "the run's report still counts the calls of a cleared journal")
  t.equal((await control('GET', '/coverage')).body.summary.calls, 0, "the namespace's own report starts again")
})

t.test("deleted and evicted namespaces' calls stay in the run's report", async (t) => {
  const { api, control, origin } = await startControlSandbox(t, { MAX_NAMESPACES: '4' })
  // One namespace per test, deleted after it: the suite's recipe.
  await api('GET', '/pets', undefined, ns('t1'))
  await api('GET', '/pets', undefined, { ...ns('t1'), Authorization: 'Bearer wrong' })
  await api('GET', '/pets', undefined, ns('t2'))
  await api('GET', '/pets/987654', undefined, ns('t3'))
  t.equal((await control('DELETE', '/namespaces/t1')).status, 200)
  t.equal((await control('DELETE', '/namespaces/t2')).status, 200)

  // Only read from, these are evicted past MAX_NAMESPACES: t3 for r3, then r1 for r4.
  await api('GET', '/pets?limit=1', undefined, ns('r1'))
  await api('GET', '/pets?limit=2', undefined, ns('r2'))
  await api('GET', '/pets?limit=3', undefined, ns('r3'))
  await api('GET', '/pets?limit=4', undefined, ns('r4'))

  const report = (await control('GET', '/coverage?all=true')).body
  t.equal(report.summary.calls, 8, 'every call of the run')
  t.match(rows(report, 'listPets'), { '200': 6, '401': 1 }, 'the 401 of a deleted namespace is exercised')
  t.equal(rows(report, 'getPet')['404'], 1, 'the 404 of an evicted namespace too')
  t.match(report.summary, { namespacesDeleted: 2, namespacesEvicted: 2 }, 'and the report says what it outlived')
  const markdown = await (
    await fetch(`${origin}/__admin/coverage?all=true&format=markdown`, { headers: ADMIN_AUTH })
  ).text()
  t.match(markdown, '; counted all the same: 2 namespaces deleted, 2 namespaces evicted (MAX_NAMESPACES)')
})
