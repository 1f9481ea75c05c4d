import t from 'tap'
import { subsetDifferences } from '../../src/journal/verify.js'
import { MAX_JSON_DEPTH } from '../../src/http/body.js'
import { MAX_RECORDED_BODY } from '../../src/journal/redactor.js'
import { ADMIN_AUTH, answerOf, pluck, startControlSandbox } from '../support/control.js'
import { AUTH } from '../support/sandbox.js'

t.test('a wrong expectation names the closest call with a field-level diff', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('POST', '/pets', { name: 'Rex', categoryId: '3' }, { 'x-request-id': 'r-1' })
  await api('POST', '/pets', { name: 'Tom', categoryId: 7, status: 'sold' })
  await api('GET', '/pets')

  const res = await control('POST', '/verify', {
    expectations: [{ operationId: 'createPet', count: 1, body: { name: 'Rex', categoryId: 3 } }],
  })
  t.equal(res.status, 200, 'a failed verification is an answer, not an error')
  const result = res.body
  t.equal(result.passed, false)
  t.equal(result.strict, false)
  t.equal(result.checked, 3)
  const [failed] = result.expectations
  t.match(failed, { index: 0, operationId: 'createPet', passed: false, expected: 'exactly 1', matched: 0 })
  t.same(failed.matchedEntries, [])
  const closest = failed.closest.map((c: { entry: { id: number } }) => c.entry.id)
  t.same(closest, [1, 2], 'the call with one difference first, then the one with two')
  t.same(failed.closest[0], {
    entry: { id: 1, method: 'POST', path: '/v1/pets', status: 400, operationId: 'createPet' },
    differences: [
      {
        in: 'body',
        pointer: '/categoryId',
        expected: 3,
        actual: '3',
        message: 'createPet body /categoryId: expected 3, got "3"',
      },
    ],
  })
  const second = failed.closest[1].differences.map((d: { message: string }) => d.message)
  t.same(second, ['createPet body /name: expected "Rex", got "Tom"', 'createPet body /categoryId: expected 3, got 7'])
  t.match(
    result.message,
    /^failed:\n- createPet: expected exactly 1 call of createPet with the body and headers given, found 0; closest:/,
  )
  t.match(result.message, '#1 POST /v1/pets → 400 (createPet):\n    createPet body /categoryId: expected 3, got "3"')

  const headers = await control('POST', '/verify', {
    expectations: [{ operationId: 'createPet', headers: { 'X-Request-Id': 'r-2' } }],
  })
  const firstDifference = (c: { differences: Array<{ message: string }> }) => c.differences[0]?.message
  t.same(
    headers.body.expectations[0].closest.map(firstDifference),
    [
      'createPet header x-request-id: expected "r-2", got nothing',
      'createPet header x-request-id: expected "r-2", got "r-1"',
    ],
    'header names in any case; the latest call first among equals',
  )
})

t.test('expectations that hold: counts, bounds, subsets, headers, and none-at-all', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('POST', '/pets', { name: 'Rex', categoryId: 3, status: 'pending' }, { 'x-request-id': 'r-1' })
  await api('GET', '/pets?limit=2')
  await api('GET', '/pets')
  const verify = async (body: unknown) => (await control('POST', '/verify', body)).body
  const passed = await verify({
    expectations: [
      { operationId: 'createPet', count: 1, body: { categoryId: 3 }, headers: { 'x-request-id': 'r-1' } },
      { operationId: 'listPets', min: 2, max: 2 },
      { operationId: 'listPets' },
      { operationId: 'getPet', count: 0 },
      { operationId: 'unmatched', max: 0 },
    ],
  })
  t.equal(passed.passed, true, passed.message)
  t.equal(passed.message, 'passed: 5 expectations met')
  t.same(
    passed.expectations.map((e: { matched: number; expected: string }) => [e.expected, e.matched]),
    [
      ['exactly 1', 1],
      ['2 to 2', 2],
      ['at least 1', 2],
      ['exactly 0', 0],
      ['at most 0', 0],
    ],
  )
  const tooMany = await verify({ expectations: [{ operationId: 'listPets', max: 1 }] })
  t.equal(tooMany.passed, false)
  t.same(tooMany.expectations[0].matchedEntries, [2, 3])
  t.same(tooMany.expectations[0].closest, [], 'nothing is "close" when there are too many')
  t.match(
    tooMany.message,
    'listPets: expected at most 1 call of listPets, found 2: #2 GET /v1/pets → 200 (listPets); #3 GET',
  )
  const never = await verify({ expectations: [{ operationId: 'getPet' }] })
  t.match(never.message, 'getPet: expected at least 1 call of getPet, found 0 (no call of getPet at all)')
})

t.test('strict mode names every call no expectation matched', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('POST', '/pets', { name: 'Rex', categoryId: 3 })
  await api('GET', '/pets/1')
  const verify = async (body: object) => (await control('POST', '/verify', { strict: true, ...body })).body
  const result = await verify({ expectations: [{ operationId: 'createPet', count: 1 }] })
  t.equal(result.passed, false)
  t.equal(result.expectations[0].passed, true)
  t.same(result.unexpected, [{ id: 2, method: 'GET', path: '/v1/pets/1', status: 200, operationId: 'getPet' }])
  t.equal(result.message, 'failed:\n- unexpected call (strict): #2 GET /v1/pets/1 → 200 (getPet)')

  const nothingElse = await verify({
    expectations: ['createPet', 'getPet'].map((operationId) => ({ operationId, count: 1 })),
  })
  t.equal(nothingElse.passed, true)
  t.equal(nothingElse.message, 'passed: 2 expectations met, no other call')

  await control('DELETE', '/requests')
  t.equal((await verify({ expectations: [] })).passed, true, 'strict with no expectation: verifyNoRequests')
})

t.test('a bad expectation is a 400 naming it', async (t) => {
  const { control } = await startControlSandbox(t)
  const one = (expectation: object) => ({ expectations: [{ operationId: 'getPet', ...expectation }] })
  for (const [body, message] of [
    [
      one({ operationId: 'deletePet' }),
      /body\.expectations\.0\.operationId must be one of: listPets, createPet, getPet, listOrders, unmatched/,
    ],
    [one({ count: 1, min: 1 }), /gives count with min or max/],
    [one({ min: 2, max: 1 }), /min is above its max/],
  ] as const)
    t.match(await control('POST', '/verify', body), { status: 400, body: { code: 'invalid_body', message } })
})

// jsonDepth itself: test/api/strict-http.test.ts; the server up after deep JSON anywhere:
// test/hardening/fuzz-regressions.test.ts.
t.test('bodies nested deeper than MAX_JSON_DEPTH are a 400 in verify, and journaled as their text', async (t) => {
  const { control, api, baseUrl, origin } = await startControlSandbox(t)
  const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
  const post = async (url: string, body: string, headers: Record<string, string>) =>
    answerOf(await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body }))
  // The expectation's body is 3 levels inside verify's: {expectations: [{body}]}.
  const deepest = JSON.parse(nested(MAX_JSON_DEPTH - 3))
  await api('POST', '/pets', deepest)
  t.match(
    await control('POST', '/verify', { expectations: [{ operationId: 'createPet', count: 1, body: deepest }] }),
    { status: 200, body: { passed: true } },
    `bodies ${MAX_JSON_DEPTH} levels deep are read and compared`,
  )

  const verifyBody = `{"expectations":[{"operationId":"createPet","body":${nested(1_700)}}]}`
  t.match(await post(`${origin}/__admin/verify`, verifyBody, ADMIN_AUTH), {
    status: 400,
    body: { code: 'invalid_body', message: /nest deeper than 128 levels/ },
  })
  // The API ignores what its schema does not name, however deep: it is journaled.
  for (const depth of [1_700, 100_000]) t.equal((await post(`${baseUrl}/pets`, nested(depth), AUTH)).status, 400)
  t.match(
    await control('POST', '/verify', { expectations: [{ operationId: 'createPet', min: 1, body: { a: { a: {} } } }] }),
    { status: 200, body: { passed: true } },
    'verify reads a journal that holds them',
  )
  t.same(
    pluck(await control('GET', '/requests?operationId=createPet'), 'body').slice(1),
    [nested(1_700), nested(100_000).slice(0, MAX_RECORDED_BODY) + `… [cut at ${MAX_RECORDED_BODY} bytes]`],
    'too deep a body is journaled as its text, cut as any long one',
  )
})

t.test('subsetDifferences: objects as subsets, arrays element by element, types exact', (t) => {
  const cases: Array<[string, unknown, unknown, Array<[string, unknown, unknown]>]> = [
    ['equal', { a: 1 }, { a: 1, b: 2 }, []],
    ['missing property', { a: { b: 1 } }, { a: {} }, [['/a/b', 1, undefined]]],
    [
      'nested object',
      { a: { b: [1, { c: true }] } },
      { a: { b: [1, { c: false, d: 0 }] } },
      [['/a/b/1/c', true, false]],
    ],
    ['array length', [1, 2], [1], [['', [1, 2], [1]]]],
    ['object against null', { a: 1 }, null, [['', { a: 1 }, null]]],
    ['null expected', { a: null }, { a: 0 }, [['/a', null, 0]]],
    ['escaped tokens (RFC 6901)', { 'a/b': 1, 'c~d': 2 }, { 'a/b': 0, 'c~d': 2 }, [['/a~1b', 1, 0]]],
    ['inherited names are not properties', { toString: 1 }, {}, [['/toString', 1, undefined]]],
    ['text body', 'x', 'x', []],
  ]
  for (const [name, expected, actual, differences] of cases) {
    const found = subsetDifferences(expected, actual).map((d) => [d.pointer, d.expected, d.actual])
    t.same(found, differences, name)
  }
  t.end()
})
