import { Writable } from 'node:stream'
import t from 'tap'
import { MAX_JOURNAL_BYTES, MAX_RECORDED_BODY } from '../../src/control/request-journal.js'
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

t.test('the journal is bounded in memory too: big bodies are cut, and the oldest entries go first', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  const big = 'x'.repeat(100 * 1024)
  for (let i = 0; i < 80; i++) await api('POST', '/pets', { name: `${i}-${big}`, categoryId: 1 })
  const { body } = await admin('GET', '/requests')
  const bytes = JSON.stringify(body.entries).length
  t.ok(bytes <= MAX_JOURNAL_BYTES, `the journal holds at most ${MAX_JOURNAL_BYTES} bytes (${bytes})`)
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
