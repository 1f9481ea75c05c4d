import { Writable } from 'node:stream'
import t from 'tap'
import { DEFAULT_JOURNAL_LIMITS } from '../../src/control/journal-memory.js'
import { MAX_RECORDED_BODY } from '../../src/control/redactor.js'
import { UNAUTHENTICATED_KEPT } from '../../src/control/request-journal.js'
import { loadConfig } from '../../src/config.js'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, startControlSandbox } from '../support/control.js'
import { API_KEY, AUTH, testConfig } from '../support/sandbox.js'

t.test('every API request is recorded with what the client sent and what it got', async (t) => {
  const { admin, api, baseUrl, origin } = await startControlSandbox(t)
  t.equal(
    (await api('POST', '/pets?trace=1&trace=2', { name: 'Rex', categoryId: 3 }, { 'x-client': 'suite' })).status,
    201,
  )
  t.equal((await api('GET', '/pets/1')).status, 200)
  t.equal((await call(`${baseUrl}/pets`, 'GET', undefined, {})).status, 401)
  t.equal((await api('GET', '/nowhere?x=1')).status, 404)
  t.equal((await api('DELETE', '/pets')).status, 405)
  t.equal((await call(`${origin}/v2/pets`, 'GET', undefined, AUTH)).status, 404)
  t.equal((await call(`${origin}/healthz`, 'GET', undefined, {})).status, 200)

  const all = await admin('GET', '/requests')
  t.equal(all.status, 200)
  t.equal(all.body.count, 6, 'the API requests, not the health check nor the control calls')
  t.equal(all.body.entries.length, 6)
  const [create, get, unauthorized, unknown, wrongMethod, otherBase] = all.body.entries
  t.match(create, {
    id: Number,
    time: String,
    namespace: 'default',
    method: 'POST',
    path: '/v1/pets',
    query: { trace: ['1', '2'] },
    headers: { authorization: 'Bearer [REDACTED]', 'content-type': 'application/json', 'x-client': 'suite' },
    body: { name: 'Rex', categoryId: 3 },
    status: 201,
    durationMs: Number,
    operationId: 'createPet',
    fault: null,
  })
  t.ok(Date.parse(create.time) <= Date.now(), 'time is a date')
  t.match(get, { method: 'GET', path: '/v1/pets/1', status: 200, operationId: 'getPet', body: null, query: {} })
  t.match(unauthorized, { status: 401, operationId: 'listPets' })
  t.notOk('authorization' in unauthorized.headers)
  t.match(unknown, { path: '/v1/nowhere', query: { x: '1' }, status: 404, operationId: 'unmatched' })
  t.match(wrongMethod, { method: 'DELETE', status: 405, operationId: 'unmatched' })
  t.match(otherBase, { path: '/v2/pets', status: 404, operationId: 'unmatched' })

  const unmatched = await admin('GET', '/requests/unmatched')
  t.equal(unmatched.body.count, 3)
  t.same(
    unmatched.body.entries.map((e: { path: string }) => e.path),
    ['/v1/nowhere', '/v1/pets', '/v2/pets'],
  )
})

t.test('GET /__admin/requests filters by method, path, operationId, status and since', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  await api('GET', '/pets')
  await api('GET', '/pets/2')
  await api('GET', '/pets/999')
  // Journal times have millisecond precision: keep `since` clear of the requests either side.
  await new Promise((resolve) => setTimeout(resolve, 5))
  const since = new Date().toISOString()
  await new Promise((resolve) => setTimeout(resolve, 5))
  await api('POST', '/pets', { name: 'Late', categoryId: 1 })
  await api('POST', '/pets', { name: 'Bad' })

  const count = async (query: string): Promise<number> => {
    const res = await admin('GET', `/requests?${query}`)
    t.equal(res.status, 200, query)
    t.equal(res.body.count, res.body.entries.length)
    return res.body.count
  }
  t.equal(await count('method=post'), 2, 'method, any case')
  t.equal(await count('path=/v1/pets'), 3, 'exact path')
  t.equal(await count('path=/v1/pets/*'), 2, 'path prefix')
  t.equal(await count('operationId=getPet'), 2)
  t.equal(await count('status=404'), 1)
  t.equal(await count('status=400&method=POST'), 1, 'filters combine')
  t.equal(await count(`since=${encodeURIComponent(since)}`), 2)
  t.equal(await count('operationId=unmatched'), 0)

  const cleared = await admin('DELETE', '/requests')
  t.same(cleared.body, { namespace: 'default', cleared: 5 })
  t.equal(await count(''), 0)
})

t.test('the journal is bounded by JOURNAL_SIZE: the oldest entries are dropped first', async (t) => {
  const { admin, api } = await startControlSandbox(t, { JOURNAL_SIZE: '3' })
  for (let id = 1; id <= 5; id++) await api('GET', `/pets/${id}`)
  const res = await admin('GET', '/requests')
  t.equal(res.body.count, 3)
  t.same(
    res.body.entries.map((e: { path: string }) => e.path),
    ['/v1/pets/3', '/v1/pets/4', '/v1/pets/5'],
  )
  t.same(
    res.body.entries.map((e: { id: number }) => e.id),
    [3, 4, 5],
    'ids keep counting',
  )

  const off = await startControlSandbox(t, { JOURNAL_SIZE: '0' })
  await off.api('GET', '/pets')
  t.equal((await off.admin('GET', '/requests')).body.count, 0, 'JOURNAL_SIZE=0 records nothing')
})

t.test('the journal and the logs never hold a key or the admin token, wherever the client put them', async (t) => {
  let logs = ''
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk.toString()
      done()
    },
  })
  const config = await testConfig(t, { ADMIN_TOKEN, NAMESPACE_KEY_PREFIX: 'nskey-' })
  const sandbox = await startSandbox(config, createLogger('trace', sink))
  t.teardown(() => sandbox.close())
  const familyKey = 'nskey-team1'
  const secrets = [API_KEY, ADMIN_TOKEN, familyKey]
  for (const secret of secrets) {
    const headers = { authorization: `Bearer ${secret}`, 'x-token': secret, cookie: `session=${secret}` }
    await call(
      `${sandbox.baseUrl}/pets?api_key=${secret}&${secret}=1`,
      'POST',
      { name: secret, categoryId: 1, note: `key ${secret}` },
      headers,
    )
    await call(`${sandbox.baseUrl}/${secret}`, 'GET', undefined, headers)
    await call(`${sandbox.baseUrl}/pets/1`, 'GET', undefined, { authorization: `Bearer ${secret}` })
    await call(`${sandbox.origin}/__admin/requests`, 'GET', undefined, { authorization: `Bearer ${secret}` })
  }
  const journals = []
  for (const namespace of ['default', 'team1']) {
    const res = await call(`${sandbox.origin}/__admin/requests?namespace=${namespace}`, 'GET', undefined, ADMIN_AUTH)
    journals.push(res.body)
  }
  const recorded = JSON.stringify(journals)
  t.ok(journals[0].count >= 6 && journals[1].count >= 3, 'the requests were recorded')
  t.match(recorded, /\[REDACTED\]/)
  for (const secret of secrets) {
    t.notOk(
      recorded.includes(secret),
      `the journal does not hold ${secret === API_KEY ? 'the API key' : secret === ADMIN_TOKEN ? 'the admin token' : 'the namespace key'}`,
    )
    t.notOk(logs.includes(secret), 'nor do the logs')
  }
  t.match(logs, /"msg":"request"/, 'the logs did record the requests')
})

t.test('credential headers are journaled redacted, and REDACT_HEADERS names more of them', async (t) => {
  const { admin, api } = await startControlSandbox(t, { REDACT_HEADERS: 'X-Session-Token, x-csrf' })
  await api('GET', '/pets', undefined, {
    cookie: 'session=s3cr3t-cookie; theme=dark',
    'set-cookie': 'id=s3cr3t-set-cookie',
    'x-api-key': 's3cr3t-api-key',
    'proxy-authorization': 'Basic czNjcjN0LXByb3h5',
    'x-session-token': 's3cr3t-session',
    'x-csrf': 's3cr3t-csrf',
    'x-client': 'suite',
  })
  const [entry] = (await admin('GET', '/requests')).body.entries
  t.match(entry.headers, {
    authorization: 'Bearer [REDACTED]',
    'proxy-authorization': 'Basic [REDACTED]',
    cookie: 'session=[REDACTED]; theme=[REDACTED]',
    'set-cookie': '[REDACTED]',
    'x-api-key': '[REDACTED]',
    'x-session-token': '[REDACTED]',
    'x-csrf': '[REDACTED]',
    'x-client': 'suite',
  })
  t.notMatch(JSON.stringify(entry), /s3cr3t|czNjcjN0/, 'no credential value is shown')
})

t.test('REDACT_HEADERS takes header names only', async (t) => {
  for (const value of ['X-Token,,X-Other', 'X Token', 'x-token:']) {
    t.throws(() => loadConfig([], { REDACT_HEADERS: value }), { name: 'ConfigError', message: /^REDACT_HEADERS: / })
  }
  const config = loadConfig(['--redact-headers', 'X-Token,Private'], {})
  t.same(config !== 'help' && config.redactHeaders, ['x-token', 'private'])
})

t.test('a flood of requests without a key beyond the journal size leaves the real entries in place', async (t) => {
  const { admin, api, baseUrl, origin } = await startControlSandbox(t, { JOURNAL_SIZE: '200' })
  await api('POST', '/pets', { name: 'Rex', categoryId: 3 })
  await api('GET', '/pets/1')
  // 1,001 requests without a key, 10 at a time: five times the journal's size.
  const flood = 1_001
  for (let sent = 0; sent < flood; sent += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, flood - sent) }, (_, i) =>
        call(sent + i === 0 ? `${baseUrl}/nowhere` : `${baseUrl}/pets`, 'GET', undefined, {}),
      ),
    )
  }
  await api('GET', '/pets')

  const journal = await admin('GET', '/requests?limit=1000')
  t.same(
    journal.body.entries.filter((e: { status: number }) => e.status !== 401).map((e: { path: string }) => e.path),
    ['/v1/pets', '/v1/pets/1', '/v1/pets'],
    'every request with a key is still there',
  )
  t.equal(journal.body.count, 3 + UNAUTHENTICATED_KEPT, 'with the latest requests without one')
  t.equal(journal.body.unauthenticatedDropped, flood - UNAUTHENTICATED_KEPT, 'and the count of those dropped')
  t.equal((await admin('GET', '/requests?status=401&limit=0')).body.count, UNAUTHENTICATED_KEPT)
  t.equal((await admin('GET', '/requests/unmatched?limit=0')).body.count, 0, 'the unmatched one without a key went too')

  const coverage = (await admin('GET', '/coverage')).body
  t.match(
    coverage.summary,
    {
      calls: 3 + flood,
      unauthenticatedDropped: flood - UNAUTHENTICATED_KEPT,
      journalDropped: flood - UNAUTHENTICATED_KEPT,
    },
    'the coverage counts every call, those the journal dropped too',
  )
  const markdown = await (await fetch(`${origin}/__admin/coverage?format=markdown`, { headers: ADMIN_AUTH })).text()
  t.match(
    markdown,
    `; counted all the same: ${flood - UNAUTHENTICATED_KEPT} entries the journal dropped (JOURNAL_SIZE)`,
  )
  t.equal((await admin('DELETE', '/requests')).body.cleared, 3 + UNAUTHENTICATED_KEPT)
  t.equal((await admin('GET', '/requests')).body.unauthenticatedDropped, 0, 'a clear starts the count again')
})

t.test('the journal is bounded in memory too: big bodies are cut, and the oldest entries go first', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  const big = 'x'.repeat(100 * 1024)
  for (let i = 0; i < 80; i++) await api('POST', '/pets', { name: `${i}-${big}`, categoryId: 1 })
  const { body } = await admin('GET', '/requests')
  const { journal, namespaces } = (await admin('GET', '/namespaces')).body
  const max = DEFAULT_JOURNAL_LIMITS.bytes
  t.equal(journal.maxBytesPerNamespace, max, 'the bound is reported')
  t.ok(namespaces[0].journalBytes <= max, `the journal holds at most ${max} bytes (${namespaces[0].journalBytes})`)
  t.equal(journal.bytes, namespaces[0].journalBytes, 'the one journal holds all the journals hold')
  t.ok(body.count >= 40 && body.count < 80, `older entries were dropped (${body.count} kept)`)
  const last = body.entries.at(-1)
  t.match(
    last.body,
    new RegExp(`^\\{"name":"79-x+… \\[cut at ${MAX_RECORDED_BODY} bytes\\]$`),
    'the newest is kept, its body cut',
  )
  t.equal(last.id, 80)
})

t.test('a request is in the journal as soon as its answer has been read: no test needs to poll', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  // Four clients at once, each reading its journal right after each answer, bounded in count.
  const misses: string[] = []
  await Promise.all(
    ['a', 'b', 'c', 'd'].map(async (name) => {
      const namespace = `read-after-${name}`
      for (let calls = 1; calls <= 150; calls++) {
        const answer = await api('GET', '/pets?limit=100', undefined, { 'x-sandbox-namespace': namespace })
        if (answer.status !== 200) throw new Error(`listPets answered ${answer.status}`)
        const { body } = await admin('GET', `/requests?namespace=${namespace}&operationId=listPets`)
        if (body.count !== calls) misses.push(`${namespace}: ${body.count} entries after ${calls} answers`)
      }
    }),
  )
  t.same(misses, [], 'every answer read was already journaled')
  // The same for an answer a fault broke off: its entry is there once the client sees the break.
  await admin('POST', '/faults', { operationId: 'listPets', fault: 'connection-reset', times: 1 })
  await t.rejects(api('GET', '/pets'), 'the connection is reset')
  const { body } = await admin('GET', '/requests?operationId=listPets')
  t.equal(body.entries.at(-1)?.status, null, 'journaled with no status')
})

t.test('the journal is read a page at a time: every entry once, in order, by the cursor `next`', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  // 250 requests, one after the other (entry i is request i): one getPet in five, the entry's id in
  // its path. The filter operationId=getPet matches 50 of them.
  for (let id = 1; id <= 250; id++) await api('GET', id % 5 === 1 ? `/pets/${id}` : '/pets?limit=1')

  const first = await admin('GET', '/requests')
  t.equal(first.status, 200)
  t.equal(first.body.count, 250, 'count: every matching entry, not the page')
  t.equal(first.body.entries.length, 100, 'a page holds 100 entries by default')
  t.equal(first.body.next, first.body.entries[99].id, 'next: the id of the last entry of the page')

  // Walk every page: each id once, ascending, the count the same on every page.
  const walk = async (query: string, limit: number): Promise<{ ids: number[]; pages: number }> => {
    const ids: number[] = []
    let after: number | null = null
    let pages = 0
    do {
      const res = await admin('GET', `/requests?${query}&limit=${limit}${after === null ? '' : `&after=${after}`}`)
      t.equal(res.status, 200)
      t.ok(res.body.entries.length <= limit, 'no page holds more than limit')
      t.equal(res.body.count, query === '' ? 250 : 50, `the count is on every page (${query}, page ${pages + 1})`)
      ids.push(...res.body.entries.map((e: { id: number }) => e.id))
      after = res.body.next
      pages++
    } while (after !== null && pages <= 300)
    return { ids, pages }
  }
  const everything = await walk('', 30)
  t.equal(everything.pages, 9, '250 entries in pages of 30')
  t.same(
    everything.ids,
    Array.from({ length: 250 }, (_, i) => i + 1),
    'every id exactly once, oldest first',
  )
  const getPets = await walk('operationId=getPet', 7)
  t.equal(getPets.pages, 8, '50 entries in pages of 7')
  t.equal(new Set(getPets.ids).size, 50)
  t.same(
    getPets.ids,
    [...getPets.ids].sort((a, b) => a - b),
    'ascending',
  )
  const paths = (await admin('GET', '/requests?operationId=getPet&limit=50')).body
  t.same(
    paths.entries.map((e: { path: string }) => e.path),
    Array.from({ length: 50 }, (_, i) => `/v1/pets/${i * 5 + 1}`),
    'the filter picks the entries of the pages',
  )
  t.equal(paths.next, null, 'a page that holds the last match has no next')
  const middle = await admin('GET', '/requests?operationId=getPet&limit=3&after=190')
  t.same(
    middle.body.entries.map((e: { path: string }) => e.path),
    ['/v1/pets/191', '/v1/pets/196', '/v1/pets/201'],
    'after any id, matching or not',
  )
  t.equal(middle.body.next, 201)
  const last = await admin('GET', '/requests?operationId=getPet&limit=10&after=196')
  t.equal(last.body.entries.length, 10)
  t.equal(last.body.next, null, 'the last page of a filter, full: next is null')
  t.same(
    (await admin('GET', '/requests?after=250')).body,
    { count: 250, entries: [], next: null, unauthenticatedDropped: 0 },
    'after the last',
  )

  const counted = await admin('GET', '/requests?operationId=getPet&limit=0')
  t.same(counted.body, { count: 50, entries: [], next: null, unauthenticatedDropped: 0 }, 'limit=0: the count alone')
  t.equal((await admin('GET', '/requests?limit=1000')).body.entries.length, 250, 'limit up to 1000')
})

t.test('the cursor holds across dropped and cleared entries: ids keep counting', async (t) => {
  const { admin, api } = await startControlSandbox(t, { JOURNAL_SIZE: '5' })
  for (let id = 1; id <= 8; id++) await api('GET', `/pets/${id}`)
  const page = await admin('GET', '/requests?limit=2&after=1')
  t.same(
    page.body.entries.map((e: { id: number }) => e.id),
    [4, 5],
    'after an entry already dropped: the oldest kept',
  )
  t.equal(page.body.count, 5)
  t.equal(page.body.next, 5)
  await admin('DELETE', '/requests')
  await api('GET', '/pets/9')
  const after = await admin('GET', '/requests?after=5')
  t.same(
    after.body.entries.map((e: { id: number }) => e.id),
    [9],
    'after a clear, the cursor of an old page still goes on',
  )
})

t.test('the unmatched requests are read a page at a time too', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  for (let i = 1; i <= 130; i++) await api('GET', `/nowhere/${i}`)
  await api('GET', '/pets/1')
  const first = await admin('GET', '/requests/unmatched')
  t.equal(first.body.count, 130)
  t.equal(first.body.entries.length, 100)
  t.equal(first.body.next, 100)
  const second = await admin('GET', `/requests/unmatched?after=${first.body.next}`)
  t.same(
    second.body.entries.map((e: { path: string }) => e.path),
    Array.from({ length: 30 }, (_, i) => `/v1/nowhere/${i + 101}`),
  )
  t.equal(second.body.next, null)
  t.same((await admin('GET', '/requests/unmatched?limit=0')).body, {
    count: 130,
    entries: [],
    next: null,
    unauthenticatedDropped: 0,
  })
})

t.test('a bad limit or after is a 400 with an Error body naming it', async (t) => {
  const { admin } = await startControlSandbox(t)
  for (const path of ['/requests', '/requests/unmatched'])
    for (const [query, name] of [
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=x', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['after=y', 'after'],
      ['after=-1', 'after'],
    ]) {
      const res = await admin('GET', `${path}?${query}`)
      t.equal(res.status, 400, `${path}?${query} → 400`)
      t.match(res.body, { code: 'invalid_parameter', status: 400, message: new RegExp(name as string) })
    }
})

t.test(
  "each entry records its W3C traceparent's trace id; the journal, verify and coverage filter by it",
  async (t) => {
    const { admin, api } = await startControlSandbox(t)
    const mine = '4bf92f3577b34da6a3ce929d0e0e4736'
    const theirs = '0af7651916cd43dd8448eb211c80319c'
    const parent = (traceId: string): Record<string, string> => ({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` })
    t.equal((await api('POST', '/pets', { name: 'Mine', categoryId: 1 }, parent(mine))).status, 201)
    t.equal((await api('GET', '/pets/61', undefined, parent(mine))).status, 200)
    t.equal((await api('POST', '/pets', { name: 'Theirs', categoryId: 1 }, parent(theirs))).status, 201)
    t.equal((await api('POST', '/pets', { name: 'Untraced', categoryId: 1 })).status, 201)
    // Not valid traceparents: upper case, an all-zero trace id, version ff, version 00 with more fields.
    for (const invalid of [
      `00-${mine.toUpperCase()}-00f067aa0ba902b7-01`,
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      `ff-${mine}-00f067aa0ba902b7-01`,
      `00-${mine}-00f067aa0ba902b7-01-extra`,
      `00-${mine}-${'0'.repeat(16)}-01`,
    ]) {
      t.equal((await api('GET', '/pets/1', undefined, { traceparent: invalid })).status, 200, invalid)
    }
    t.equal(
      (await api('GET', '/pets/1', undefined, { traceparent: `01-${mine}-00f067aa0ba902b7-01-future` })).status,
      200,
    )

    const all = (await admin('GET', '/requests')).body.entries as Array<{ traceId?: string; path: string }>
    t.same(
      all.map((e) => e.traceId ?? null),
      [mine, mine, theirs, null, null, null, null, null, null, mine],
      'the trace id of each valid traceparent (a later version read as 00), absent otherwise',
    )
    t.notOk('traceId' in (all[3] as object), 'absent, not null, without one')
    const page = await admin('GET', `/requests?traceId=${mine}`)
    t.equal(page.body.count, 3)
    t.same(
      page.body.entries.map((e: { operationId: string }) => e.operationId),
      ['createPet', 'getPet', 'getPet'],
    )
    t.equal((await admin('GET', `/requests?traceId=${mine}&operationId=createPet`)).body.count, 1, 'with other filters')
    const bad = await admin('GET', `/requests?traceId=${mine.toUpperCase()}`)
    t.equal(bad.status, 400)
    t.match(bad.body, { code: 'invalid_parameter', status: 400, message: /traceId/ })

    const expectOne = { expectations: [{ operationId: 'createPet', count: 1 }], strict: false }
    t.match((await admin('POST', '/verify', expectOne)).body, { passed: false }, 'three creates in the namespace')
    const verified = await admin('POST', `/verify?traceId=${mine}`, expectOne)
    t.match(verified.body, { passed: true, checked: 3 }, 'one in the trace')
    const strict = await admin('POST', `/verify?traceId=${theirs}`, { ...expectOne, strict: true })
    t.match(
      strict.body,
      { passed: true, checked: 1 },
      "strict: no other call in that trace, whatever the others' calls",
    )
    t.match(
      (await admin('POST', `/verify?traceId=${theirs}`, { expectations: [{ operationId: 'getPet', count: 0 }] })).body,
      { passed: true },
      'counts are of the trace too',
    )

    const coverage = await admin('GET', `/coverage?traceId=${mine}`)
    t.equal(coverage.body.summary.calls, 3)
    const calls = (report: { operations: Array<{ operationId: string; calls: number }> }, id: string): number =>
      report.operations.find((op) => op.operationId === id)?.calls ?? -1
    t.equal(calls(coverage.body, 'createPet'), 1)
    t.equal(calls((await admin('GET', '/coverage')).body, 'createPet'), 3, 'without the filter: every call')
    t.equal((await admin('GET', `/coverage?all=true&traceId=${theirs}`)).body.summary.calls, 1, 'across namespaces')
  },
)

t.test('verify of a trace whose calls the journal may have dropped is incomplete, never passed', async (t) => {
  const { admin, api } = await startControlSandbox(t, { JOURNAL_SIZE: '2' })
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  await api('GET', '/pets/1', undefined, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` })
  await api('GET', '/pets/2')
  const kept = { expectations: [{ operationId: 'getPet', count: 0 }] }
  t.match((await admin('POST', `/verify?traceId=${traceId}`, kept)).body, { passed: false }, 'its call is kept')
  await api('GET', '/pets/3')
  await api('GET', '/pets/4')
  const result = (await admin('POST', `/verify?traceId=${traceId}`, kept)).body
  t.match(result, { passed: false, incomplete: true, journalDropped: 2, checked: 0 })
  t.match(result.message, /dropped 2 entries, which may be calls of getPet/)
  t.match(
    (await admin('POST', `/verify?traceId=${traceId}`, { expectations: [{ operationId: 'getPet', count: 1 }] })).body,
    { passed: false, incomplete: true },
  )
})
