import t from 'tap'
import { MAX_DELAY_MS, MAX_FAULTS } from '../../src/namespaces/faults.js'
import { startControlSandbox } from '../support/control.js'
import { AUTH } from '../support/sandbox.js'

t.test(
  'a fault fires exactly `times` times after skipping `after` calls, then the operation is normal again',
  async (t) => {
    const { control, api } = await startControlSandbox(t)
    const added = await control('POST', '/faults', { operationId: 'getPet', status: 503, times: 2, after: 1 })
    t.equal(added.status, 201)
    t.match(added.body, { id: Number, operationId: 'getPet', status: 503, times: 2, after: 1, seen: 0, fired: 0 })

    const statuses = []
    for (let i = 0; i < 5; i++) {
      const res = await api('GET', '/pets/1')
      statuses.push(res.status)
      if (res.status === 503)
        t.same(res.body, { code: 'injected_fault', message: res.body.message, status: 503 }, 'the contract Error body')
    }
    t.same(statuses, [200, 503, 503, 200, 200])
    t.equal((await api('GET', '/pets')).status, 200, 'other operations are untouched')

    const listed = await control('GET', '/faults')
    t.equal(listed.body.count, 1)
    t.match(listed.body.faults[0], { seen: 5, fired: 2 })
    const journal = await control('GET', '/requests?operationId=getPet&status=503')
    t.equal(journal.body.count, 2, 'the journal shows the injected answers')
    t.match(journal.body.entries[0].fault, /^fault \d+: status 503$/)

    t.same((await control('DELETE', '/faults')).body, { namespace: 'default', cleared: 1 })
    t.equal((await control('GET', '/faults')).body.count, 0)
  },
)

t.test('a fault without `times` acts on every call until it is cleared', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await control('POST', '/faults', { operationId: 'createPet', status: 429 })
  for (let i = 0; i < 3; i++) {
    const res = await api('POST', '/pets', { name: 'Rex', categoryId: 1 })
    t.equal(res.status, 429)
    t.equal(res.body.code, 'injected_fault')
  }
  t.equal((await control('GET', '/pets')).body.length, 60, 'nothing was stored')
  await control('DELETE', '/faults')
  t.equal((await api('POST', '/pets', { name: 'Rex', categoryId: 1 })).status, 201)
  const recorded = await control('GET', '/requests?operationId=createPet&status=429')
  t.same(
    recorded.body.entries[0].body,
    { name: 'Rex', categoryId: 1 },
    'the journal holds the body even when a fault answered',
  )
})

t.test('one fault is disarmed by its id, answered as it ended; the others stay armed', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const listing = (await control('POST', '/faults', { operationId: 'listPets', status: 503 })).body
  const getting = (await control('POST', '/faults', { operationId: 'getPet', status: 500 })).body
  t.equal((await api('GET', '/pets')).status, 503)
  const removed = await control('DELETE', `/faults/${listing.id}`)
  t.equal(removed.status, 200)
  t.match(removed.body, { id: listing.id, operationId: 'listPets', seen: 1, fired: 1 }, 'how often it fired')
  t.equal((await api('GET', '/pets')).status, 200, 'the operation answers normally again')
  t.equal((await api('GET', '/pets/1')).status, 500, 'the other fault is still armed')
  t.same(
    (await control('GET', '/faults')).body.faults.map((fault: { id: number }) => fault.id),
    [getting.id],
  )

  const again = await control('DELETE', `/faults/${listing.id}`)
  t.same(again.body, {
    code: 'not_found',
    message: `No fault ${listing.id} in namespace "default": GET /__admin/faults lists those armed`,
    status: 404,
  })
  t.equal((await control('POST', '/faults?namespace=other', { operationId: 'getPet', status: 500 })).status, 201)
  t.equal((await control('DELETE', `/faults/${getting.id}?namespace=other`)).status, 404, "another namespace's ids")
  t.equal((await control('DELETE', '/faults/first')).status, 400)
})

t.test('connection-reset, empty-response and malformed-body break the answer as a real client sees it', async (t) => {
  const { control, api, baseUrl } = await startControlSandbox(t)
  const get = async (fault: string) => {
    await control('POST', '/faults', { operationId: 'getPet', fault, times: 1 })
    return fetch(`${baseUrl}/pets/1`, { headers: AUTH })
  }
  const reset = await get('connection-reset').catch((e: Error & { cause?: { code?: string } }) => e)
  t.match(reset, { name: 'TypeError', cause: { code: /^(ECONNRESET|UND_ERR_SOCKET)$/ } }, 'a reset socket')
  const [entry] = (await control('GET', '/requests?operationId=getPet')).body.entries
  t.match(entry, { status: null, fault: /connection-reset/ }, 'journaled with no status, once the client sees it')
  t.equal((await api('GET', '/pets/1')).status, 200, 'the next call is served')

  t.match(await get('empty-response').catch((e: Error) => e), { name: 'TypeError' }, 'closed without an answer')

  const malformed = await get('malformed-body')
  t.equal(malformed.status, 200, "malformed-body: the operation's success status")
  t.match(malformed.headers.get('content-type'), /^application\/json/)
  await t.rejects(malformed.json(), SyntaxError, 'and a body that is not JSON')
})

t.test('delays: a fault delayMs and Prefer: delay hold the answer at least that long', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await control('POST', '/faults', { operationId: 'getPet', delayMs: 150, times: 1 })
  let started = performance.now()
  t.equal((await api('GET', '/pets/1')).status, 200, 'a delay alone keeps the normal answer')
  t.ok(performance.now() - started >= 145, 'the fault delayed the answer')
  started = performance.now()
  t.equal((await api('GET', '/pets/1', undefined, { prefer: 'delay=120' })).status, 200)
  t.ok(performance.now() - started >= 115, 'Prefer: delay delayed the answer')
  const [, preferred] = (await control('GET', '/requests')).body.entries
  t.ok(preferred.durationMs >= 115, 'the journal shows the duration')
})

t.test('bounds: delays above the maximum, unknown operations and empty faults are refused', async (t) => {
  const { control, api } = await startControlSandbox(t)
  // The schema's refusals in general: test/api/validation.test.ts; an unknown operation:
  // test/conformance/spec-responses.test.ts.
  const cases: Array<[unknown, RegExp]> = [
    [{ operationId: 'getPet', delayMs: MAX_DELAY_MS + 1 }, /body\.delayMs must be <= 30000/],
    [{ operationId: 'getPet' }, /a fault needs status, delayMs or fault/],
    [{ operationId: 'getPet', status: 200 }, /body\.status must be >= 400/],
  ]
  for (const [body, message] of cases) {
    const res = await control('POST', '/faults', body)
    t.equal(res.status, 400, JSON.stringify(body))
    t.match(res.body, { code: 'invalid_body', status: 400, message })
  }
  t.equal((await control('GET', '/faults')).body.count, 0)
  for (const prefer of [`delay=${MAX_DELAY_MS + 1}`, 'code=abc']) {
    const res = await api('GET', '/pets', undefined, { prefer })
    t.equal(res.status, 400, `Prefer: ${prefer} → 400`)
    t.match(res.body, { code: 'invalid_parameter', message: /^Invalid Prefer header: / })
  }
})

t.test('Prefer: code forces a documented response of the operation', async (t) => {
  const { api } = await startControlSandbox(t)
  // A documented success is served normally, other preferences are ignored, an undocumented code
  // is refused, and an operation with a default response takes any error status. The headers a
  // forced answer carries: test/api/strict-http.test.ts.
  for (const [path, prefer, answer] of [
    ['/pets/1', 'code=404', { status: 404, body: { code: 'not_found', message: /Prefer: code=404/ } }],
    ['/pets/1', 'code=200', { status: 200, body: { id: 1 } }],
    ['/pets', 'respond-async, code=200', { status: 200 }],
    ['/pets/1', 'code=418', { status: 400, body: { message: /getPet \(documented: 200, 401, 404\)/ } }],
    ['/store/orders', 'code=503', { status: 503, body: { code: 'storage_unavailable', status: 503 } }],
  ] as const)
    t.match(await api('GET', path, undefined, { prefer }), answer, `GET ${path}, Prefer: ${prefer}`)
})

t.test(`a namespace keeps at most ${MAX_FAULTS} faults armed: one more is a 409 until they are cleared`, async (t) => {
  const { control } = await startControlSandbox(t)
  for (let i = 0; i < MAX_FAULTS; i++) {
    const added = await control('POST', '/faults?namespace=many', { operationId: 'getPet', status: 503, after: 1000 })
    if (added.status !== 201) t.fail(`fault ${i + 1} answered ${added.status}`)
  }
  const over = await control('POST', '/faults?namespace=many', { operationId: 'getPet', status: 503 })
  t.match(over, {
    status: 409,
    body: { code: 'conflict', message: /has 100 faults armed, the most it keeps/, status: 409 },
  })
  t.equal((await control('GET', '/faults?namespace=many')).body.count, MAX_FAULTS, 'nothing more was armed')
  t.equal((await control('GET', '/namespaces')).body.maxFaults, MAX_FAULTS, 'the bound is reported')
  await control('DELETE', '/faults?namespace=many')
  t.equal((await control('POST', '/faults?namespace=many', { operationId: 'getPet', status: 503 })).status, 201)
})
