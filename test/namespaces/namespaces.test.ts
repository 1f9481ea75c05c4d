import { access, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { call, ns, pluck, startControlSandbox, traceparent } from '../support/control.js'
import { stopAsKilled, tempDir } from '../support/sandbox.js'

/** The id of trace `n`. */
const trace = (n: number): string => `4bf92f3577b34da6a3ce929d0e0e47${String(n).padStart(2, '0')}`
const parent = (n: number): Record<string, string> => traceparent(trace(n))
const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  )

t.test('X-Sandbox-Namespace gives each test its own store, journal and faults', async (t) => {
  const { control, api, namespaceNames } = await startControlSandbox(t)
  const created = await api('POST', '/pets', { name: 'OnlyInA', categoryId: 1 }, ns('a'))
  t.equal(created.status, 201)
  t.equal(created.body.id, 61, 'a namespace starts from the same initial data')
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 200)
  t.equal((await api('GET', '/pets/61', undefined, ns('b'))).status, 404, 'b does not see it')
  t.equal((await api('GET', '/pets/61')).status, 404, 'neither does the default namespace')

  await control('POST', '/faults?namespace=b', { operationId: 'listPets', status: 500 })
  t.equal((await api('GET', '/pets', undefined, ns('b'))).status, 500, 'b has the fault')
  t.equal((await api('GET', '/pets', undefined, ns('a'))).status, 200, 'a does not')
  t.equal((await api('GET', '/pets')).status, 200, 'nor does the default namespace')

  t.same(pluck(await control('GET', '/requests?namespace=a'), 'namespace'), ['a', 'a', 'a'], "a's journal")
  t.equal((await control('GET', '/requests')).body.count, 2)

  const reset = await control('POST', '/reset?namespace=a')
  t.same(reset.body, { namespace: 'a', pets: 60 })
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 404, 'a is back to the initial data')
  t.equal((await control('GET', '/faults?namespace=b')).body.count, 1, "a's reset leaves b's faults")
  t.equal((await control('GET', '/requests?namespace=b')).body.count, 2, "and b's journal")
  t.equal((await control('GET', '/pets?namespace=default')).body.length, 60)
  t.equal((await api('POST', '/pets', { name: 'Traced', categoryId: 1 }, parent(1))).status, 201)
  t.equal((await control('GET', '/pets')).body.length, 61, 'without NAMESPACE_FROM_TRACE a traceparent picks nothing')
  t.same(await namespaceNames(), ['a', 'b', 'default'])
})

t.test('two namespaces under concurrent load never see each other', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const sides = ['left', 'right']
  const work = []
  for (let i = 0; i < 60; i++)
    for (const name of sides) {
      work.push(api('POST', '/pets', { name: `${name}-${i}`, categoryId: 1 }, ns(name)))
      work.push(api('GET', '/pets?limit=100', undefined, ns(name)).then((list) => ({ ...list, name })))
    }
  const results = await Promise.all(work)
  const failed = results.filter((r) => r.status !== 200 && r.status !== 201)
  t.same(failed, [], 'every call succeeded')
  const ids = Array.from({ length: 60 }, (_, i) => 61 + i)
  for (const name of sides) {
    type Pet = { id: number; name: string }
    const added = (await control('GET', `/pets?namespace=${name}`)).body.slice(60) as Pet[]
    const own = (pet: Pet) => pet.name.startsWith(`${name}-`)
    const addedIds = added.map(({ id }) => id)
    t.same(addedIds, ids, `${name}: ids unique and dense`)
    t.ok(added.every(own), `${name} holds only its own pets`)
    const lists = results.filter((r) => 'name' in r && r.name === name).map((r) => r.body as Pet[])
    const mixed = lists.filter((pets) => !pets.every((p) => own(p) || p.id <= 60))
    t.same(mixed, [], `no list in ${name} showed another's pet`)
    t.equal((await control('GET', `/requests?namespace=${name}`)).body.count, 120)
  }
  t.equal((await control('GET', '/pets')).body.length, 60, 'the default namespace is untouched')
})

t.test('key mode: every key of the NAMESPACE_KEY_PREFIX family opens the API and picks its namespace', async (t) => {
  const { control, baseUrl } = await startControlSandbox(t, { NAMESPACE_KEY_PREFIX: 'sbx-' })
  const key = (k: string): Record<string, string> => ({ authorization: `Bearer ${k}` })
  t.equal((await call(`${baseUrl}/pets`, 'POST', { name: 'Mine', categoryId: 1 }, key('sbx-team1'))).status, 201)
  for (const [path, headers, status, what] of [
    ['/pets/61', key('sbx-team1'), 200, 'its own store'],
    ['/pets/61', key('sbx-team2'), 404, 'another key, another store'],
    ['/pets/61', key('test-key-1'), 404, 'a listed key uses the default namespace'],
    ['/pets', key('sbx-'), 401, 'the prefix alone is no key'],
    ['/pets', key('other-team1'), 401, 'outside the family: refused'],
    ['/pets/61', { ...key('sbx-team1'), ...ns('team1') }, 200, 'header and key agree'],
  ] as const)
    t.equal((await call(`${baseUrl}${path}`, 'GET', undefined, headers)).status, status, what)
  const conflict = await call(`${baseUrl}/pets`, 'GET', undefined, { ...key('sbx-team1'), ...ns('team2') })
  t.match(conflict, { status: 400, body: { code: 'invalid_parameter', message: /choose different namespaces/ } })
  t.equal((await control('GET', '/requests?namespace=team1')).body.count, 3, 'its journal (not the refused conflict)')
  t.same((await control('POST', '/reset?namespace=team1')).body, { namespace: 'team1', pets: 60 })
  t.equal((await call(`${baseUrl}/pets/61`, 'GET', undefined, key('sbx-team1'))).status, 404)
})

t.test('requests without a valid key create no namespace, so they cannot evict real ones', async (t) => {
  const { control, api, baseUrl, namespaceNames } = await startControlSandbox(t, { MAX_NAMESPACES: '3' })
  t.equal((await api('POST', '/pets', { name: 'InA', categoryId: 1 }, ns('a'))).status, 201)
  for (let i = 0; i < 20; i++) {
    t.equal((await call(`${baseUrl}/pets`, 'GET', undefined, ns(`flood${i}`))).status, 401)
  }
  t.same(await namespaceNames(), ['a', 'default'], 'only namespaces with an authenticated request exist')
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 200, "a's pet is still there")
  t.equal(
    (await control('GET', '/requests?namespace=default&status=401')).body.count,
    20,
    'the refused requests are journaled in the default namespace',
  )
})

t.test('an invalid namespace name is refused, after auth', async (t) => {
  const { api, baseUrl } = await startControlSandbox(t)
  for (const name of ['../x', '.hidden', 'a'.repeat(65), 'with space']) {
    const res = await api('GET', '/pets', undefined, ns(name))
    t.equal(res.status, 400, JSON.stringify(name))
    t.match(res.body, { code: 'invalid_parameter', message: /^X-Sandbox-Namespace must be/ })
  }
  t.equal((await call(`${baseUrl}/pets`, 'GET', undefined, ns('../x'))).status, 401, 'auth first')
})

t.test('reading or clearing an unknown namespace is a 404 that creates nothing', async (t) => {
  const { control, namespaceNames } = await startControlSandbox(t)
  for (const [method, path] of [
    ['GET', '/requests?namespace=typo'],
    ['GET', '/pets?namespace=typo'],
    ['DELETE', '/faults?namespace=typo'],
  ] as const) {
    const answer = await control(method, path)
    t.equal(answer.status, 404, `${method} ${path}: 404`)
    t.match(answer.body, { status: 404, code: 'not_found', message: /No namespace "typo"/ })
  }
  t.same(await namespaceNames(), ['default'], 'the typo took no slot')
  t.equal((await control('POST', '/reset?namespace=typo')).status, 200, 'a reset creates it')
  t.equal((await control('GET', '/requests?namespace=typo')).status, 200, 'then it can be read')
})

// A namespace's own files, and a restart that serves them: test/store/reset.test.ts.
t.test('DELETE /__admin/namespaces/{name}: gone, data file and all, also after a restart', async (t) => {
  const first = await startControlSandbox(t)
  const { dataFile } = first.config
  await first.api('POST', '/pets', { name: 'Doomed', categoryId: 1 }, ns('gone'))
  const file = join(dataFile as string, '..', 'db.ns.gone.json')
  t.ok(await exists(`${file}.journal`), 'the namespace has a data file (its append log)')

  const deleted = await first.control('DELETE', '/namespaces/gone')
  t.same(deleted.body, { namespace: 'gone', deleted: true })
  t.notOk(await exists(file), 'its data file is removed before the answer')
  t.notOk(await exists(`${file}.journal`), 'and its append log')
  t.equal((await first.control('GET', '/requests?namespace=gone')).status, 404, 'reading it is a 404')
  t.equal((await first.control('DELETE', '/namespaces/gone')).status, 404, 'deleting it again is a 404')
  t.match((await first.control('DELETE', '/namespaces/default')).body, { status: 400, message: /default namespace/ })
  await first.close()

  const second = await startControlSandbox(t, { DATA_FILE: dataFile as string })
  t.equal((await second.control('GET', '/pets?namespace=gone')).status, 404, 'a restart does not bring it back')
  const fresh = await second.api('GET', '/pets?limit=100', undefined, ns('gone'))
  t.notOk(
    fresh.body.some((pet: { name: string }) => pet.name === 'Doomed'),
    'used again, it starts from the initial data',
  )
})

t.test('the W3C Baggage member sandbox.namespace picks the namespace when nothing else does', async (t) => {
  const { control, api, baseUrl, namespaceNames } = await startControlSandbox(t, { NAMESPACE_KEY_PREFIX: 'sbx-' })
  const baggage = (value: string): Record<string, string> => ({ baggage: value })
  const created = await api('POST', '/pets', { name: 'Traced', categoryId: 1 }, baggage('sandbox.namespace=team-a'))
  t.equal(created.status, 201)
  t.equal((await control('GET', '/pets?namespace=team-a')).body.length, 61, 'created in team-a')
  t.equal((await api('GET', '/pets/61')).status, 404, 'not in the default namespace')

  // Other members, properties, whitespace, percent-encoding: only the member named exactly counts.
  for (const value of [
    'userId=alice, sandbox.namespace = team-a ;ttl=5, other=1',
    'sandbox.namespacex=other,sandbox.namespace=team%2Da',
    'x.sandbox.namespace=other;p, sandbox.namespace=team-a;sandbox.namespace=other',
    'broken member, sandbox.namespace=team-a',
  ]) {
    t.equal((await api('GET', '/pets/61', undefined, baggage(value))).status, 200, value)
  }
  t.equal((await api('GET', '/pets/61', undefined, baggage('userId=alice'))).status, 404, 'without the member')
  const teamA = baggage('sandbox.namespace=team-a')
  t.equal((await api('GET', '/pets/61', undefined, { ...teamA, ...ns('team-a') })).status, 200, 'header agrees')
  const key = { authorization: 'Bearer sbx-team-a' }
  t.equal((await call(`${baseUrl}/pets/61`, 'GET', undefined, { ...key, ...teamA })).status, 200, 'key agrees')

  for (const conflict of [
    { ...ns('team-b'), ...baggage('sandbox.namespace=team-a') },
    { authorization: 'Bearer sbx-team-b', ...baggage('sandbox.namespace=team-a') },
    baggage('sandbox.namespace=team-a,sandbox.namespace=team-b'),
  ]) {
    const refused = await call(`${baseUrl}/pets`, 'GET', undefined, { authorization: 'Bearer test-key-1', ...conflict })
    t.match(refused, { status: 400, body: { code: 'invalid_parameter', message: /choose different namespaces/ } })
  }
  const badName = /^The baggage member sandbox.namespace must be 1 to 64 letters/
  for (const value of ['sandbox.namespace=..%2Fx', 'sandbox.namespace=', 'sandbox.namespace=%zz'])
    t.match(await api('GET', '/pets', undefined, baggage(value)), { status: 400, body: { message: badName } }, value)
  t.same(await namespaceNames(), ['default', 'team-a'], 'no namespace was made by a refused request')
})

t.test('NAMESPACE_FROM_TRACE=on: a request that names no namespace works in its trace id’s', async (t) => {
  const { control, api, namespaceNames } = await startControlSandbox(t, {
    NAMESPACE_FROM_TRACE: 'on',
    MAX_NAMESPACES: '3',
  })
  t.equal((await api('POST', '/pets', { name: 'InTrace1', categoryId: 1 }, parent(1))).status, 201)
  t.equal((await control('GET', `/pets?namespace=${trace(1)}`)).body.length, 61, 'made from the initial data')
  for (const [headers, status, what] of [
    [parent(1), 200, 'the same trace, the same namespace'],
    [parent(2), 404, 'another trace, another namespace'],
    [{}, 404, 'no traceparent: the default namespace'],
    [{ ...parent(1), ...ns('default') }, 404, 'a namespace named explicitly wins'],
    [{ ...parent(2), baggage: `sandbox.namespace=${trace(1)}` }, 200, 'so does one the baggage names'],
  ] as const)
    t.equal((await api('GET', '/pets/61', undefined, headers)).status, status, what)
  t.same(
    pluck(await control('GET', `/requests?namespace=${trace(1)}`), 'path'),
    ['/v1/pets', '/v1/pets/61', '/v1/pets/61'],
    "its journal holds the trace's requests",
  )

  // MAX_NAMESPACES=3: default, trace 1 (holds a pet) and trace 2 (only read). Trace 3 evicts 2.
  t.equal((await api('POST', '/pets', { name: 'InTrace3', categoryId: 1 }, parent(3))).status, 201)
  t.same(await namespaceNames(), ['default', trace(1), trace(3)].sort(), 'the trace namespace that held nothing went')
  // Every one kept holds data: trace 4 unloads trace 1, which reads its pet back at its next use.
  t.equal((await api('GET', '/pets', undefined, parent(4))).status, 200, 'a new trace gets room')
  t.same(await namespaceNames(), ['default', trace(3), trace(4)].sort())
  t.match(await api('GET', '/pets/61', undefined, parent(1)), { status: 200, body: { name: 'InTrace1' } })
})

t.test(
  'TRACE_NAMESPACE_BASELINE: a trace’s namespace starts from a snapshot, and is evicted while unchanged',
  async (t) => {
    const {
      control,
      api,
      config,
      namespaceNames: names,
    } = await startControlSandbox(t, {
      NAMESPACE_FROM_TRACE: 'on',
      TRACE_NAMESPACE_BASELINE: 'baseline',
      MAX_NAMESPACES: '3',
    })

    const early = await api('GET', '/pets', undefined, parent(1))
    t.equal(early.status, 503, 'no snapshot yet: a new trace is refused')
    t.match(early.body, { code: 'baseline_missing', status: 503, message: /No snapshot "baseline"/ })
    t.same(await names(), ['default'], 'and no namespace was made')

    t.equal((await api('POST', '/pets', { name: 'InBaseline', categoryId: 1 }, ns('setup'))).status, 201)
    t.equal((await control('POST', '/snapshots', { name: 'baseline', namespace: 'setup' })).status, 201)
    t.equal((await control('DELETE', '/namespaces/setup')).status, 200)
    t.match((await api('GET', '/pets/61', undefined, parent(1))).body, { name: 'InBaseline' }, "the snapshot's pets")
    t.equal((await api('GET', '/pets/61')).status, 404, 'the default namespace keeps the initial data')
    // Across a restart: test/trace/baseline-restart.test.ts.
    const files = await readdir(join(config.dataFile as string, '..'))
    const written = files.filter((file) => file.includes('.ns.'))
    t.same(written, [], 'read from its baseline, it writes no file')

    // MAX_NAMESPACES=3: default, trace 1 (only read) and trace 2. Trace 3 evicts trace 1.
    t.equal((await api('POST', '/pets', { name: 'InTrace2', categoryId: 1 }, parent(2))).status, 201)
    t.equal((await api('GET', '/pets/61', undefined, parent(3))).status, 200)
    t.same(await names(), ['default', trace(2), trace(3)].sort(), 'the unchanged trace namespace was evicted')
    t.equal((await api('POST', '/pets', { name: 'InTrace3', categoryId: 1 }, parent(3))).status, 201)
    // Every trace namespace kept changed its baseline: a new trace unloads the least recently used.
    t.equal((await api('GET', '/pets', undefined, parent(4))).status, 200)
    t.same(await names(), ['default', trace(3), trace(4)].sort(), 'trace 2 was unloaded')
    t.match((await api('GET', '/pets/62', undefined, parent(2))).body, { name: 'InTrace2' }, 'no write was lost')
    t.match((await api('GET', '/pets/61', undefined, parent(2))).body, { name: 'InBaseline' }, 'nor its baseline')
    t.match((await api('GET', '/pets/62', undefined, parent(3))).body, { name: 'InTrace3' })

    t.equal((await control('DELETE', `/namespaces/${trace(3)}`)).status, 200)
    t.match(
      (await api('GET', '/pets/61', undefined, parent(1))).body,
      { name: 'InBaseline' },
      'an evicted trace namespace comes back from the snapshot',
    )
  },
)

t.test('TRACE_NAMESPACE_BASELINE: a trace’s namespace starts at the snapshot’s clock, which is no move', async (t) => {
  const { control, api, namespaceNames } = await startControlSandbox(t, {
    NAMESPACE_FROM_TRACE: 'on',
    TRACE_NAMESPACE_BASELINE: 'later',
    MAX_NAMESPACES: '2',
  })
  await control('POST', '/clock?namespace=setup', { now: '2031-06-01T00:00:00Z' })
  t.equal((await control('POST', '/snapshots', { name: 'later', namespace: 'setup' })).status, 201)
  t.equal((await control('DELETE', '/namespaces/setup')).status, 200)
  t.equal((await api('GET', '/pets/1', undefined, parent(1))).status, 410, "the snapshot's clock: past the sunset")
  t.equal((await api('GET', '/pets/1', undefined, parent(2))).status, 410, 'trace 1, unchanged, made room for it')
  await control('POST', `/clock?namespace=${trace(2)}`, { now: '2030-01-01T00:00:00Z' })
  t.match(await api('GET', '/pets', undefined, parent(3)), { status: 503, body: { code: 'namespace_limit' } })
  t.equal((await api('GET', '/pets/1', undefined, parent(2))).status, 200, 'the clock trace 2 was moved to is kept')

  t.equal((await control('DELETE', `/namespaces/${trace(2)}`)).status, 200)
  t.equal((await api('POST', '/pets', { name: 'Kept', categoryId: 1 }, parent(5))).status, 201)
  t.equal((await api('GET', '/pets', undefined, parent(6))).status, 200, 'trace 5, which holds a pet, made room')
  t.same(await namespaceNames(), ['default', trace(6)].sort())
  t.match(
    await api('GET', '/pets?limit=100', undefined, parent(5)),
    { status: 200, body: { length: 61 } },
    'trace 5 is read back',
  )
  t.equal((await api('GET', '/pets/1', undefined, parent(5))).status, 410, "at its snapshot's clock")
})

t.test(
  'a namespace whose files hold only its initial data (a deletion a kill cut short) is gone after a restart',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const first = await startControlSandbox(t, { DATA_FILE: dataFile })
    t.equal((await first.api('POST', '/pets', { name: 'Doomed', categoryId: 1 }, ns('cut'))).status, 201)
    // A deletion's first step: a reset to the initial data, durable before the files go.
    t.equal((await first.control('POST', '/reset?namespace=cut')).status, 200)
    stopAsKilled(first, dataFile)
    t.ok((await readdir(dir)).includes('db.ns.cut.json.journal'), 'its files are there')

    const second = await startControlSandbox(t, { DATA_FILE: dataFile })
    t.equal((await second.control('GET', '/pets?namespace=cut')).status, 404, 'reading it is a 404')
    const left = (await readdir(dir)).filter((file) => file.includes('.ns.cut.'))
    t.same(left, [], 'and its files are removed')
    t.equal((await second.api('GET', '/pets?limit=1', undefined, ns('cut'))).status, 200, 'a use makes it anew')
  },
)
