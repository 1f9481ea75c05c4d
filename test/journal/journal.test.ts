import t from 'tap'
import { JournalMemory } from '../../src/journal/journal-memory.js'
import { Redactor } from '../../src/journal/redactor.js'
import { Journal, UNAUTHENTICATED_KEPT } from '../../src/journal/request-journal.js'
import type { RequestRecord } from '../../src/journal/request-record.js'
import { ADMIN_AUTH, call, ns, pluck, startControlSandbox, traceparent } from '../support/control.js'
import { AUTH } from '../support/sandbox.js'

t.test('every API request is recorded with what the client sent and what it got', async (t) => {
  const { control, api, baseUrl, origin } = await startControlSandbox(t)
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

  const all = await control('GET', '/requests')
  t.equal(all.body.count, 6, 'the API requests, not the health check nor the control calls')
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
  t.match(get, { method: 'GET', path: '/v1/pets/1', status: 200, operationId: 'getPet', body: null, query: {} })
  t.match(unauthorized, { status: 401, operationId: 'listPets' })
  t.notOk('authorization' in unauthorized.headers)
  t.match(unknown, { path: '/v1/nowhere', query: { x: '1' }, status: 404, operationId: 'unmatched' })
  t.match(wrongMethod, { method: 'DELETE', status: 405, operationId: 'unmatched' })
  t.match(otherBase, { path: '/v2/pets', status: 404, operationId: 'unmatched' })

  t.same(pluck(await control('GET', '/requests/unmatched'), 'path'), ['/v1/nowhere', '/v1/pets', '/v2/pets'])
})

t.test('GET /__admin/requests filters by method, path, operationId, status and since', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('GET', '/pets')
  await api('GET', '/pets/2')
  await api('GET', '/pets/999')
  // Journal times have millisecond precision: keep `since` clear of the requests either side.
  await new Promise((resolve) => setTimeout(resolve, 5))
  const since = new Date().toISOString()
  await new Promise((resolve) => setTimeout(resolve, 5))
  await api('POST', '/pets', { name: 'Late', categoryId: 1 })
  await api('POST', '/pets', { name: 'Bad' })

  const count = async (query: string): Promise<number> => (await control('GET', `/requests?${query}`)).body.count
  t.equal(await count('method=post'), 2, 'method, any case')
  t.equal(await count('path=/v1/pets'), 3, 'exact path')
  t.equal(await count('path=/v1/pets/*'), 2, 'path prefix')
  t.equal(await count('operationId=getPet'), 2)
  t.equal(await count('status=404'), 1)
  t.equal(await count('status=400&method=POST'), 1, 'filters combine')
  t.equal(await count(`since=${encodeURIComponent(since)}`), 2)
  t.equal(await count('operationId=unmatched'), 0)

  const cleared = await control('DELETE', '/requests')
  t.same(cleared.body, { namespace: 'default', cleared: 5 })
  t.equal(await count(''), 0)
})

// The configured keys and the admin token, through the CLI: test/hardening/secrets.test.ts.
t.test('the journal and the logs never hold a namespace key, wherever the client put it', async (t) => {
  const { control, baseUrl, logs } = await startControlSandbox(t, {
    NAMESPACE_KEY_PREFIX: 'nskey-',
    LOG_LEVEL: 'trace',
  })
  const key = 'nskey-team1'
  const headers = { authorization: `Bearer ${key}`, 'x-token': key }
  t.equal(
    (await call(`${baseUrl}/pets?api_key=${key}&${key}=1`, 'POST', { name: key, categoryId: 1 }, headers)).status,
    201,
  )
  t.equal((await call(`${baseUrl}/${key}`, 'GET', undefined, headers)).status, 404)
  const recorded = JSON.stringify((await control('GET', '/requests?namespace=team1')).body.entries)
  t.match(recorded, /\[REDACTED\]/)
  t.notOk(recorded.includes(key), 'the journal does not hold it')
  t.notOk(JSON.stringify(logs).includes(key), 'nor do the logs')
  t.ok(
    logs.some((line) => line['msg'] === 'request'),
    'the logs did record the requests',
  )
})

t.test('credential headers are journaled redacted, and REDACT_HEADERS names more of them', async (t) => {
  const { control, api } = await startControlSandbox(t, { REDACT_HEADERS: 'X-Session-Token, x-csrf' })
  await api('GET', '/pets', undefined, {
    cookie: 'session=s3cr3t-cookie; theme=dark',
    'set-cookie': 'id=s3cr3t-set-cookie',
    'x-api-key': 's3cr3t-api-key',
    'proxy-authorization': 'Basic czNjcjN0LXByb3h5',
    'x-session-token': 's3cr3t-session',
    'x-csrf': 's3cr3t-csrf',
    'x-client': 'suite',
  })
  const [entry] = (await control('GET', '/requests')).body.entries
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

t.test('a flood of requests without a key beyond the journal size leaves the real entries in place', async (t) => {
  const { control, api, baseUrl, origin } = await startControlSandbox(t, { JOURNAL_SIZE: '200' })
  await api('POST', '/pets', { name: 'Rex', categoryId: 3 })
  await api('GET', '/pets/1')
  // 250 requests without a key, 10 at a time: more than the journal's size.
  const flood = 250
  for (let sent = 0; sent < flood; sent += 10) {
    const urls = Array.from({ length: 10 }, (_, i) => `${baseUrl}/${sent + i === 0 ? 'nowhere' : 'pets'}`)
    await Promise.all(urls.map((url) => call(url, 'GET', undefined, {})))
  }
  await api('GET', '/pets')

  const journal = await control('GET', '/requests?limit=1000')
  t.same(
    pluck(journal, 'status'),
    [201, 200, ...Array(UNAUTHENTICATED_KEPT).fill(401), 200],
    'every request with a key, and the latest ones without, in the order received',
  )
  const dropped = flood - UNAUTHENTICATED_KEPT
  t.equal(journal.body.unauthenticatedDropped, dropped, 'and the count of those dropped')
  t.equal(
    (await control('GET', '/requests/unmatched?limit=0')).body.count,
    0,
    'the unmatched one without a key went too',
  )
  t.match(
    (await control('GET', '/coverage')).body.summary,
    { calls: 3 + flood, unauthenticatedDropped: dropped, journalDropped: dropped },
    'the coverage counts every call, those the journal dropped too',
  )
  const markdown = await (await fetch(`${origin}/__admin/coverage?format=markdown`, { headers: ADMIN_AUTH })).text()
  t.match(markdown, `; counted all the same: ${dropped} entries the journal dropped (JOURNAL_SIZE)`)
  t.equal((await control('DELETE', '/requests')).body.cleared, 3 + UNAUTHENTICATED_KEPT)
  t.equal((await control('GET', '/requests')).body.unauthenticatedDropped, 0, 'a clear starts the count again')
})

t.test('a request is in the journal as soon as its answer has been read: no test needs to poll', async (t) => {
  const { control, api } = await startControlSandbox(t)
  // Four clients at once, each reading its journal right after each answer, bounded in count.
  const misses: string[] = []
  await Promise.all(
    ['a', 'b', 'c', 'd'].map(async (name) => {
      const namespace = `read-after-${name}`
      for (let calls = 1; calls <= 150; calls++) {
        const answer = await api('GET', '/pets?limit=100', undefined, ns(namespace))
        if (answer.status !== 200) throw new Error(`listPets answered ${answer.status}`)
        const { body } = await control('GET', `/requests?namespace=${namespace}&operationId=listPets`)
        if (body.count !== calls) misses.push(`${namespace}: ${body.count} entries after ${calls} answers`)
      }
    }),
  )
  t.same(misses, [], 'every answer read was already journaled (an answer a fault broke off: faults.test.ts)')
})

t.test('the journal is read a page at a time: every entry once, in order, by the cursor `next`', async (t) => {
  const { control, api } = await startControlSandbox(t)
  // 250 requests, one after the other (entry i is request i): one getPet in five, the entry's id in
  // its path. The filter operationId=getPet matches 50 of them.
  for (let id = 1; id <= 250; id++) await api('GET', id % 5 === 1 ? `/pets/${id}` : '/pets?limit=1')
  const page = async (query: string) => (await control('GET', `/requests?${query}`)).body

  const first = await page('')
  t.equal(first.count, 250, 'count: every matching entry, not the page')
  t.equal(first.entries.length, 100, 'a page holds 100 entries by default')
  t.equal(first.next, first.entries[99].id, 'next: the id of the last entry of the page')

  // Walk every page: each id once, ascending, the count the same on every page.
  const walk = async (query: string, limit: number, count: number): Promise<{ ids: number[]; pages: number }> => {
    const ids: number[] = []
    let after: number | null = null
    let pages = 0
    do {
      const { entries, next, count: counted } = await page(`${query}&limit=${limit}&after=${after ?? 0}`)
      t.ok(entries.length <= limit && counted === count, `page ${++pages} of ${query}: at most limit, the count of all`)
      ids.push(...entries.map((e: { id: number }) => e.id))
      after = next
    } while (after !== null && pages <= 300)
    return { ids, pages }
  }
  const ascending = (length: number, step = 1) => Array.from({ length }, (_, i) => i * step + 1)
  // 10 full pages: the last, full, has no next.
  t.same(await walk('', 25, 250), { ids: ascending(250), pages: 10 }, 'every id exactly once, oldest first')
  t.same(await walk('operationId=getPet', 7, 50), { ids: ascending(50, 5), pages: 8 }, 'a filter, page by page')
  const middle = await control('GET', '/requests?operationId=getPet&limit=3&after=190')
  t.same(pluck(middle, 'id'), [191, 196, 201], 'after any id, matching or not')
  const empty = { entries: [], next: null, unauthenticatedDropped: 0 }
  t.same(await page('after=250'), { count: 250, ...empty }, 'after the last')
  t.same(await page('operationId=getPet&limit=0'), { count: 50, ...empty }, 'limit=0: the count alone')
  t.equal((await page('limit=1000')).entries.length, 250, 'limit up to 1000')
})

t.test(
  'JOURNAL_SIZE bounds the journal, oldest first; the cursor holds across dropped and cleared entries',
  async (t) => {
    const { control, api } = await startControlSandbox(t, { JOURNAL_SIZE: '5' })
    for (let id = 1; id <= 8; id++) await api('GET', `/pets/${id}`)
    // Entry i is the request for pet i.
    t.same(pluck(await control('GET', '/requests'), 'id'), [4, 5, 6, 7, 8], 'the latest 5, their ids counting on')
    const page = await control('GET', '/requests?limit=2&after=1')
    t.same(pluck(page, 'id'), [4, 5], 'after an entry already dropped: the oldest kept')
    t.match(page.body, { count: 5, next: 5 })
    await control('DELETE', '/requests')
    await api('GET', '/pets/9')
    t.same(
      pluck(await control('GET', '/requests?after=5'), 'id'),
      [9],
      'after a clear, the cursor of an old page goes on',
    )

    const off = await startControlSandbox(t, { JOURNAL_SIZE: '0' })
    await off.api('GET', '/pets')
    t.equal((await off.control('GET', '/requests')).body.count, 0, 'JOURNAL_SIZE=0 records nothing')
  },
)

t.test("each entry records its traceparent's trace id; the journal and coverage filter by it", async (t) => {
  const { control, api } = await startControlSandbox(t)
  const mine = '4bf92f3577b34da6a3ce929d0e0e4736'
  const theirs = '0af7651916cd43dd8448eb211c80319c'
  t.equal((await api('POST', '/pets', { name: 'Mine', categoryId: 1 }, traceparent(mine))).status, 201)
  t.equal((await api('GET', '/pets/61', undefined, traceparent(mine))).status, 200)
  t.equal((await api('POST', '/pets', { name: 'Theirs', categoryId: 1 }, traceparent(theirs))).status, 201)
  t.equal((await api('POST', '/pets', { name: 'Untraced', categoryId: 1 })).status, 201)
  // Not valid: upper case, an all-zero trace or parent id, version ff, version 00 with more fields;
  // then a later version, read as 00.
  for (const sent of [
    `00-${mine.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `ff-${mine}-00f067aa0ba902b7-01`,
    `00-${mine}-00f067aa0ba902b7-01-extra`,
    `00-${mine}-${'0'.repeat(16)}-01`,
    `01-${mine}-00f067aa0ba902b7-01-future`,
  ])
    t.equal((await api('GET', '/pets/1', undefined, { traceparent: sent })).status, 200, sent)

  const all = await control('GET', '/requests')
  t.same(
    pluck(all, 'traceId').map((id) => id ?? null),
    [mine, mine, theirs, null, null, null, null, null, null, mine],
    'the trace id of each valid traceparent, absent otherwise',
  )
  t.notOk('traceId' in all.body.entries[3], 'absent, not null, without one')
  t.same(pluck(await control('GET', `/requests?traceId=${mine}`), 'operationId'), ['createPet', 'getPet', 'getPet'])
  t.equal((await control('GET', `/requests?traceId=${mine}&operationId=createPet`)).body.count, 1, 'with other filters')

  // Verify and coverage of one trace, its calls among others': test/trace/service-under-test.test.ts.
  t.equal(
    (await control('GET', `/coverage?all=true&traceId=${theirs}`)).body.summary.calls,
    1,
    'coverage across namespaces',
  )
})

t.test('verify of a trace whose calls the journal may have dropped is incomplete, never passed', async (t) => {
  const { control, api } = await startControlSandbox(t, { JOURNAL_SIZE: '2' })
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const verify = async (count: number) =>
    (await control('POST', `/verify?traceId=${traceId}`, { expectations: [{ operationId: 'getPet', count }] })).body
  await api('GET', '/pets/1', undefined, traceparent(traceId))
  await api('GET', '/pets/2')
  t.match(await verify(0), { passed: false }, 'its call is kept')
  await api('GET', '/pets/3')
  await api('GET', '/pets/4')
  const result = await verify(0)
  t.match(result, { passed: false, incomplete: true, journalDropped: 2, checked: 0 })
  t.match(result.message, /dropped 2 entries, which may be calls of getPet/)
  t.match(await verify(1), { passed: false, incomplete: true })
})

// The same bound through a process, its memory read from outside: test/hardening/journal-memory.test.ts.
t.test('journals share a total in bytes: the one recorded to least recently gives up its oldest first', async (t) => {
  const MiB = 1024 * 1024
  const memory = new JournalMemory({ requests: 1000, bytes: 2 * MiB, totalBytes: 4 * MiB })
  const [a, b, c] = ['a', 'b', 'c'].map(() => new Journal(1000, new Redactor([]), undefined, memory)) as [
    Journal,
    Journal,
    Journal,
  ]
  /** A create with a body of 60 KiB. */
  const big = (i: number): RequestRecord => ({
    time: Date.UTC(2026, 0, 1) + i,
    namespace: 'n',
    method: 'POST',
    path: '/v1/pets',
    search: '',
    headers: {},
    body: Buffer.alloc(60 * 1024, 'x'),
    status: 400,
    durationMs: 1,
    operationId: 'createPet',
    fault: null,
    error: undefined,
    authenticated: true,
    traceId: undefined,
  })
  for (let i = 1; i <= 60; i++) a.record(big(i))
  t.ok(a.bytes <= 2 * MiB, `one journal holds at most its own bound (${a.bytes})`)
  t.ok(a.length < 60 && a.length > 10, `its oldest went first (${a.length} kept)`)
  const kept = a.length
  for (let i = 1; i <= 60; i++) b.record(big(i))
  for (let i = 1; i <= 60; i++) c.record(big(i))
  t.ok(memory.bytes <= 4 * MiB, `all of them hold at most the total (${memory.bytes})`)
  t.equal(memory.bytes, a.bytes + b.bytes + c.bytes, 'what they hold is counted exactly')
  t.ok(a.length < kept, `the journal recorded to least recently gave up its oldest (${a.length} of ${kept} kept)`)
  t.same([b.length, c.length], [kept, kept], 'the ones recorded to since keep theirs')
  const held = memory.bytes
  const cBytes = c.bytes
  c.close()
  t.equal(memory.bytes, held - cBytes, "a closed journal's bytes go back")
  c.record(big(61))
  t.equal(c.length, 0, 'a closed journal records nothing more')
})
