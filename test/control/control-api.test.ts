import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_ADMIN_TOKEN, loadConfig } from '../../src/config.js'
import { generateAnimals } from '../../src/store/seed.js'
import { loadSpec, loadSpecFile } from '../../src/contract/load.js'
import { CONTROL_SPEC_FILE } from '../../src/paths.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, startControlSandbox } from '../support/control.js'
import { AUTH, redoclyLint, spawnCli, startTestSandbox, tempDir } from '../support/sandbox.js'

const ERROR_SHAPE = { code: String, message: String, status: Number }

t.test('spec/admin.openapi.yaml passes Redocly lint, under /__admin, the admin token on every operation', async (t) => {
  const lint = await redoclyLint('spec/admin.openapi.yaml')
  t.equal(lint.code, 0, lint.output)
  t.notMatch(lint.output, /You have \d+ warnings?/, 'no warnings either')
  const spec = await loadSpecFile(CONTROL_SPEC_FILE)
  t.equal(spec.basePath, '/__admin')
  t.match(spec.operations, Array(spec.operations.length).fill({ secured: true }), 'the admin token on every one')
})

t.test(
  'every control operation refuses a missing, malformed or wrong token, API keys and the default token',
  async (t) => {
    const { control, baseUrl } = await startControlSandbox(t)
    const { operations } = await loadSpecFile(CONTROL_SPEC_FILE)
    for (const op of operations) {
      for (const [label, headers] of [
        ['no token', {}],
        ['malformed', { authorization: 'Basic abc' }],
        ['wrong token', { authorization: 'Bearer not-the-token' }],
        ['an API key', AUTH],
        ['the default token, with a token configured', { authorization: `Bearer ${DEFAULT_ADMIN_TOKEN}` }],
      ] as const) {
        const res = await control(op.method, op.path, undefined, headers)
        t.equal(res.status, 401, `${op.method} /__admin${op.path} with ${label} → 401`)
        t.match(res.body, { ...ERROR_SHAPE, code: 'unauthorized', status: 401 })
        t.match(res.headers.get('www-authenticate'), /^Bearer realm="animal-store-admin"/)
      }
    }
    t.equal(
      (await control('GET', '/pets', undefined, { authorization: `bearer ${ADMIN_TOKEN}` })).status,
      200,
      'any case',
    )
    t.match(await call(`${baseUrl}/pets`, 'GET', undefined, ADMIN_AUTH), { status: 401 }, 'the token opens no API')
  },
)

t.test('with the control API off, /__admin is not there and the API still works', async (t) => {
  const off = await startTestSandbox(t, { ADMIN_TOKEN, ADMIN: 'off' })
  t.match(await call(`${off.origin}/__admin/pets`, 'GET', undefined, ADMIN_AUTH), {
    status: 404,
    body: { code: 'not_found', status: 404 },
  })
  t.equal((await call(`${off.baseUrl}/pets`, 'GET', undefined, AUTH)).status, 200)
  t.match(loadConfig(['--no-admin'], {}), { adminToken: undefined }, '--no-admin switches it off')
})

// Settings' parsers in general (whole numbers, on or off): test/start/cli.test.ts; the dates
// CLOCK shares with POST /__admin/clock: clock.test.ts.
t.test('control settings: flags, and a bad value names its setting', async (t) => {
  t.match(loadConfig([], {}), { adminToken: DEFAULT_ADMIN_TOKEN, defaultAdminToken: true, namespaceFromTrace: false })
  const flags = loadConfig(
    ['--admin-token=tok', '--journal-size=5', '--namespace-from-trace', '--redact-headers=X-Token,Private'],
    {
      ADMIN_TOKEN: 'other',
      JOURNAL_TOTAL_BYTES: '8000000',
      TRACE_NAMESPACE_BASELINE: 'empty-store',
      CLOCK: '2031-01-01T00:00:00Z',
    },
  )
  if (flags === 'help') throw new Error('help')
  t.match(flags, {
    adminToken: 'tok',
    defaultAdminToken: false,
    journal: { requests: 5, bytes: 4 * 1024 * 1024, totalBytes: 8_000_000 },
    namespaceFromTrace: true,
    traceNamespaceBaseline: 'empty-store',
    redactHeaders: ['x-token', 'private'],
  })
  t.equal(flags.clock?.toISOString(), '2031-01-01T00:00:00.000Z')

  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ ADMIN: 'maybe' }, /^ADMIN must be on or off/],
    [{ TRACE_NAMESPACE_BASELINE: 'empty' }, /^TRACE_NAMESPACE_BASELINE applies only with NAMESPACE_FROM_TRACE=on$/],
    [
      { NAMESPACE_FROM_TRACE: 'on', TRACE_NAMESPACE_BASELINE: '../x' },
      /^TRACE_NAMESPACE_BASELINE must be a snapshot's name: .*, got "..\/x"$/,
    ],
    [{ ADMIN_TOKEN: 'has space' }, /^ADMIN_TOKEN has characters/],
    [{ ADMIN_TOKEN: 'same', API_KEYS: 'same' }, /^ADMIN_TOKEN must differ from every API key/],
    [{ ADMIN_TOKEN: 'sandbox-api-key' }, /^ADMIN_TOKEN must differ/],
    [{ JOURNAL_BYTES: '1000' }, /^JOURNAL_BYTES must be a whole number from 1048576 to 1073741824/],
    [
      { JOURNAL_BYTES: '8000000', JOURNAL_TOTAL_BYTES: '4000000' },
      /^JOURNAL_BYTES \(8000000\) is more than JOURNAL_TOTAL_BYTES/,
    ],
    [{ CLOCK: 'tomorrow' }, /^CLOCK must be an RFC 3339 date-time/],
    [{ NAMESPACE_KEY_PREFIX: 'sandbox-' }, /^NAMESPACE_KEY_PREFIX is a prefix of the admin token/],
    [{ COVERAGE_FILE: '/no-such-folder/c.json' }, /^COVERAGE_FILE: no folder \/no-such-folder to write the report in$/],
    [{ REDACT_HEADERS: 'X Token' }, /^REDACT_HEADERS: /],
  ]
  for (const [env, message] of bad)
    t.throws(() => loadConfig([], env), { name: 'ConfigError', message }, JSON.stringify(env))
})

t.test('POST /__admin/reset puts back the initial data, and clears journal and faults', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const before = await control('GET', '/pets')
  t.equal((await api('POST', '/pets', { name: 'Temp', categoryId: 1 })).status, 201)
  t.equal((await control('POST', '/faults', { operationId: 'listPets', status: 500 })).status, 201)
  t.equal((await control('GET', '/pets')).body.length, 61)

  const reset = await control('POST', '/reset')
  t.equal(reset.status, 200)
  t.same(reset.body, { namespace: 'default', pets: 60 })
  t.same((await control('GET', '/pets')).body, before.body, 'the store holds the initial data again')
  t.equal((await control('GET', '/requests')).body.count, 0, 'the journal is empty')
  t.equal((await control('GET', '/faults')).body.count, 0, 'the faults are gone')
  t.equal((await api('GET', '/pets')).status, 200, 'the cleared fault no longer fires')
  // On disk when acknowledged, and replayed by a restart: test/store/reset.test.ts.
  t.equal((await api('POST', '/pets', { name: 'Next', categoryId: 2 })).body.id, 61, 'ids continue from the reset data')
})

t.test('POST /__admin/reset {seed, count} reseeds deterministically; bad bodies are refused', async (t) => {
  const { control } = await startControlSandbox(t)
  const spec = await loadSpec()
  const reset = await control('POST', '/reset', { seed: 7, count: 5 })
  t.same(reset.body, { namespace: 'default', pets: 5 })
  t.same((await control('GET', '/pets')).body, await generateAnimals(spec.schemas['Pet'] ?? {}, 7, 5))
  for (const [body, message] of [
    [{ count: 10_001 }, /body\.count must be <= 10000/],
    [{ seeds: 1 }, /body\.seeds is not an accepted property/],
  ] as const)
    t.match(await control('POST', '/reset', body), {
      status: 400,
      body: { code: 'invalid_body', status: 400, message },
    })
  t.equal((await control('GET', '/pets')).body.length, 5, 'a refused reset changes nothing')
})

t.test(
  'PUT /__admin/pets replaces the store; an invalid array changes nothing and names the first bad record',
  async (t) => {
    const { control, api, config, origin } = await startControlSandbox(t)
    const pets = [
      { id: 3, name: 'Three', categoryId: 1, status: 'sold' },
      { id: 1, name: 'One', categoryId: 2, extra: 'dropped' },
    ]
    const put = await control('PUT', '/pets', pets)
    t.equal(put.status, 200)
    t.same(put.body, { namespace: 'default', pets: 2 })
    const expected = [
      { id: 1, name: 'One', categoryId: 2, status: 'available' },
      { id: 3, name: 'Three', categoryId: 1, status: 'sold' },
    ]
    t.same((await control('GET', '/pets')).body, expected, 'id order, Pet fields only, omitted status → available')
    t.same((await api('GET', '/pets')).body, expected, 'the API serves the new data')
    t.same(JSON.parse(await readFile(config.dataFile as string, 'utf8')).pets, expected, 'persisted')

    const pet = (id: unknown, name?: string) => ({ id, name, categoryId: 1 })
    for (const [body, message] of [
      [[pet(5, 'ok'), pet(6, 'ok'), pet(7)], /body\.2\.name is required/],
      [[pet(5, 'ok'), pet(5, 'again')], /record 1: id 5 is used twice; nothing was changed/],
    ] as const)
      t.match(await control('PUT', '/pets', body), {
        status: 400,
        body: { code: 'invalid_body', status: 400, message },
      })
    t.same((await control('GET', '/pets')).body, expected, 'refused arrays changed nothing')
    const empty = await control('PUT', '/pets', [])
    t.same(empty.body, { namespace: 'default', pets: 0 })
    t.equal((await call(`${origin}/__admin/pets`, 'PUT', undefined, ADMIN_AUTH)).status, 400, 'the body is required')
  },
)

t.test('the control API answers unknown paths, wrong methods and bad parameters with the Error body', async (t) => {
  const { control } = await startControlSandbox(t)
  t.match(await control('GET', '/nothing'), { status: 404, body: { code: 'not_found', status: 404 } })
  const wrong = await control('PATCH', '/pets')
  t.match(wrong, { status: 405, body: { code: 'method_not_allowed', status: 405 } })
  t.equal(wrong.headers.get('allow'), 'GET, PUT, HEAD')
  t.match(await control('GET', '/pets?namespace=../etc'), {
    status: 400,
    body: { code: 'invalid_parameter', message: /query\.namespace must match pattern/ },
  })
})

t.test('the start banner points at the explorer and /mcp and shows the default admin token', async (t) => {
  const dir = await tempDir(t)
  const byDefault = await spawnCli(t, { DATA_FILE: join(dir, 'a.json') })
  t.match(byDefault.stderr, new RegExp(`test control: http://\\S+/__admin \\(Bearer ${DEFAULT_ADMIN_TOKEN}\\)`))
  t.match(byDefault.stderr, /agents: http:\/\/\S+\/mcp \(MCP, opened by the same token\)/, 'the banner names /mcp')
  const docs = /docs: +(http:\/\/\S+\/docs)/.exec(byDefault.stderr)?.[1]
  const page = await fetch(docs ?? 'http://127.0.0.1:1/')
  t.equal(page.status, 200, 'the banner points at the explorer')
  await page.arrayBuffer()
  byDefault.child.kill('SIGTERM')
  await byDefault.exited
  // A configured token, never shown: test/hardening/secrets.test.ts.
  const off = await spawnCli(t, { DATA_FILE: join(dir, 'c.json'), ADMIN: 'off' })
  t.match(off.stderr, /test control: off/)
  t.notMatch(off.stderr, /agents:/, 'and says nothing of /mcp while it is off')
  off.child.kill('SIGTERM')
  await off.exited
})

t.test('a reset is atomic: concurrent readers see the old data or the new, never a mix', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const old = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `old-${i}`, categoryId: 1, status: 'sold' }))
  t.equal((await control('PUT', '/pets', old)).status, 200)
  const reads = Array.from({ length: 60 }, () => api('GET', '/pets?limit=100'))
  const reset = control('POST', '/reset')
  const more = Array.from({ length: 60 }, () => api('GET', '/pets?limit=100'))
  const lists = (await Promise.all([...reads, ...more])).map((r) => r.body as Array<{ name: string }>)
  t.equal((await reset).status, 200)
  const kinds = lists.map((pets) =>
    pets.every((p) => p.name.startsWith('old-'))
      ? 'old'
      : pets.some((p) => p.name.startsWith('old-'))
        ? 'mixed'
        : 'new',
  )
  t.notOk(kinds.includes('mixed'), 'no list mixes the two')
  t.equal(lists.find((_, i) => kinds[i] === 'new')?.length ?? 60, 60, 'a new list is the whole initial data')
  t.equal((await api('GET', '/pets?limit=100')).body.length, 60)
})
