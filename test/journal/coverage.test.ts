// GET /__admin/coverage after a suite-like sequence, checked to the letter; its Markdown; and
// COVERAGE_FILE, written at shutdown (a bad one stops the start: control-api.test.ts).
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { ADMIN_AUTH, ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { tempDir } from '../support/sandbox.js'

/** A consumer suite's calls: happy paths, the unhappy paths it thought of, one it forced, one it forgot. */
async function suite({ api, control, baseUrl }: ControlSandbox): Promise<void> {
  const expect = (what: string, status: number, got: number): void => {
    if (got !== status) throw new Error(`${what}: expected ${status}, got ${got}`)
  }
  expect('list', 200, (await api('GET', '/pets')).status)
  expect('list, first available', 200, (await api('GET', '/pets?limit=1&status=available')).status)
  expect('list, a full page', 200, (await api('GET', '/pets?limit=100')).status)
  expect('list, limit 0', 400, (await api('GET', '/pets?limit=0')).status)
  expect('list, no key', 401, (await fetch(`${baseUrl}/pets`)).status)
  expect('create', 201, (await api('POST', '/pets', { name: 'Rex', categoryId: 3 })).status)
  expect('create, id as text', 400, (await api('POST', '/pets', { name: 'Rex', categoryId: '3' })).status)
  expect(
    'create, forced 400',
    400,
    (await api('POST', '/pets', { name: 'Rex', categoryId: 3 }, { prefer: 'code=400' })).status,
  )
  expect('get', 200, (await api('GET', '/pets/1')).status)
  expect('get, deleted pet', 404, (await api('GET', '/pets/987654')).status)
  expect(
    'arm a fault',
    201,
    (await control('POST', '/faults', { operationId: 'getPet', status: 503, times: 1 })).status,
  )
  expect('get, service down', 503, (await api('GET', '/pets/1')).status)
  expect('move the clock', 200, (await control('POST', '/clock', { now: '2030-12-05T00:00:00Z' })).status)
  expect('get, after the sunset', 410, (await api('GET', '/pets/1')).status)
  expect('clock back', 200, (await control('DELETE', '/clock')).status)
  expect('a path the API lacks', 404, (await api('GET', '/nowhere')).status)
  expect('orders', 501, (await api('GET', '/store/orders')).status)
}

/** Each operation's count of calls, in the report's order. */
const callsOf = (report: { operations: Array<{ calls: number }> }) => report.operations.map((op) => op.calls)

const row = (status: string, code: string | null, calls: number, forced = 0) => ({
  status,
  code,
  label: code === null ? status : `${status} ${code}`,
  // Only malformed HTTP or JSON causes these: no conforming client meets them.
  reachable: code !== 'malformed_json' && code !== 'bad_request',
  exercised: calls > 0,
  calls,
  forced,
})

/** An operation's line of the report: a stable, undeprecated operation unless `more` says otherwise. */
const operation = (operationId: string, method: string, path: string, calls: number, more: object) => ({
  operationId,
  method,
  path,
  stability: 'stable',
  deprecated: false,
  sunset: null,
  replacement: null,
  calls,
  undocumented: [],
  unanswered: 0,
  parameters: [],
  complete: true,
  message: `${operationId} (${method} ${path}), namespace default: every reachable documented response exercised`,
  ...more,
})

/** The line of an operation whose reachable `labels` were never exercised. */
const incomplete = (title: string, labels: string) => ({
  complete: false,
  message: `${title}, namespace default: never exercised ${labels}`,
})

/** What the report must say of `suite`, operation by operation. */
const EXPECTED_OPERATIONS = [
  operation('listPets', 'GET', '/v1/pets', 5, {
    responses: [row('200', null, 3), row('401', null, 1)],
    undocumented: [{ status: 400, code: 'invalid_parameter', calls: 1 }],
    parameters: [
      {
        name: 'limit',
        values: [
          { value: '1', kind: 'minimum', label: '1 (minimum)', calls: 1 },
          { value: '100', kind: 'maximum', label: '100 (maximum)', calls: 1 },
          { value: null, kind: 'default', label: 'default (20)', calls: 2 },
        ],
        others: [{ value: '0', calls: 1 }],
      },
      {
        name: 'status',
        values: [
          { value: 'available', kind: 'enum', label: 'available', calls: 1 },
          { value: 'pending', kind: 'enum', label: 'pending', calls: 0 },
          { value: 'sold', kind: 'enum', label: 'sold', calls: 0 },
          { value: null, kind: 'omitted', label: 'omitted', calls: 4 },
        ],
        others: [],
      },
    ],
  }),
  operation('createPet', 'POST', '/v1/pets', 3, {
    responses: [
      row('201', null, 1),
      row('400', 'invalid_body', 1),
      row('400', 'malformed_json', 0),
      row('400', 'bad_request', 1, 1),
      row('401', null, 0),
    ],
    ...incomplete('createPet (POST /v1/pets)', '401'),
  }),
  operation('getPet', 'GET', '/v1/pets/{petId}', 4, {
    deprecated: true,
    sunset: '2030-12-05T00:00:00.000Z',
    replacement: '/v1/pets',
    responses: [row('200', null, 1), row('401', null, 0), row('404', null, 1)],
    undocumented: [
      { status: 503, code: 'injected_fault', calls: 1 },
      { status: 410, code: 'gone', calls: 1 },
    ],
    ...incomplete('getPet (GET /v1/pets/{petId})', '401'),
  }),
  operation('listOrders', 'GET', '/v1/store/orders', 1, { responses: [row('default', null, 1)] }),
]

t.test('a suite-like sequence: the report names exactly what it provoked and what it did not', async (t) => {
  const sandbox = await startControlSandbox(t)
  await suite(sandbox)
  const res = await sandbox.control('GET', '/coverage')
  t.match(res.headers.get('content-type'), /^application\/json/)
  const report = res.body
  t.match(report, { reportVersion: 1, namespace: 'default', namespaces: ['default'] })
  t.ok(Math.abs(Date.parse(report.generatedAt) - Date.now()) < 60_000, 'generatedAt is now')
  t.same(report.operations, EXPECTED_OPERATIONS, 'each operation: calls, responses, other answers, parameters')
  t.same(report.summary, {
    calls: 14,
    operations: 4,
    responses: 11,
    exercised: 8,
    reachable: 9,
    reachableExercised: 7,
    unmatched: 1,
    invalid: 2,
    deprecatedCalls: 4,
    unstableCalls: 0,
    unauthenticatedDropped: 0,
    journalDropped: 0,
    namespacesDeleted: 0,
    namespacesEvicted: 0,
  })
  t.equal(report.complete, false)
  t.equal(
    report.message,
    [EXPECTED_OPERATIONS[1]?.message, EXPECTED_OPERATIONS[2]?.message].join('\n'),
    'the lines of the operations not complete',
  )
  t.same(report.deprecatedCalls, [
    {
      operationId: 'getPet',
      method: 'GET',
      path: '/v1/pets/{petId}',
      calls: 4,
      sunset: '2030-12-05T00:00:00.000Z',
      replacement: '/v1/pets',
    },
  ])
  t.equal(
    report.deprecatedCallsMessage,
    'deprecated operations called (namespace default):\n' +
      '- getPet (GET /v1/pets/{petId}): 4 calls, sunset 2030-12-05, use /v1/pets instead',
    'the message an assertion of no deprecated calls raises',
  )
  t.same(report.unstableCalls, [])
  t.same(report.unmatched, { count: 1, requests: [{ method: 'GET', path: '/v1/nowhere', status: 404, calls: 1 }] })
  t.match(report.invalid, {
    count: 2,
    requests: [
      {
        namespace: 'default',
        operationId: 'listPets',
        method: 'GET',
        path: '/v1/pets',
        status: 400,
        code: 'invalid_parameter',
        message: /query\.limit must be >= 1/,
      },
      {
        operationId: 'createPet',
        status: 400,
        code: 'invalid_body',
        message: 'Invalid request body: body.categoryId must be an integer',
      },
    ],
  })

  const markdown = await fetch(`${sandbox.origin}/__admin/coverage?format=markdown`, { headers: ADMIN_AUTH })
  t.match(markdown.headers.get('content-type'), /^text\/markdown/)
  const text = await markdown.text()
  t.match(text, '# API coverage: namespace `default`')
  t.match(
    text,
    '7 of 9 reachable documented responses exercised (and 1 of 2 only malformed HTTP or JSON causes), over 14 calls (1 unmatched, 2 invalid).',
  )
  t.match(
    text,
    '| operation | calls | 200 | 201 | 400 invalid_body | 400 malformed_json | 400 bad_request | 401 | 404 | default | other answers |',
  )
  t.match(text, '| `createPet` POST /v1/pets | 3 |  | ✅ 1 | ✅ 1 | ➖ | ✅ 1 | ❌ |  |  |  |')
  t.match(
    text,
    '| `getPet` GET /v1/pets/{petId} (deprecated) | 4 | ✅ 1 |  |  |  |  | ❌ | ✅ 1 |  | 503 injected_fault ×1, 410 gone ×1 |',
  )
  t.match(text, '- `getPet` (GET /v1/pets/{petId}): 4 calls; removed on 2030-12-05; use `/v1/pets` instead')
  t.match(text, '- `listPets` `limit`: 1 (minimum) ✅ 1, 100 (maximum) ✅ 1, default (20) ✅ 2; also sent: `0` ×1')
  t.match(text, '- GET /v1/nowhere → 404 ×1')
})

t.test('per namespace and across all of them', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await api('GET', '/pets', undefined, ns('team-a'))
  await api('GET', '/pets/1', undefined, ns('team-b'))
  await api('GET', '/pets/1', undefined, ns('team-b'))

  const a = (await control('GET', '/coverage?namespace=team-a')).body
  t.equal(a.namespace, 'team-a')
  t.same(callsOf(a), [1, 0, 0, 0], 'team-a: its own call only')
  t.same(a.deprecatedCalls, [], 'team-a called no deprecated operation')
  t.equal(a.deprecatedCallsMessage, 'no deprecated operations called (namespace team-a)')
  t.equal((await control('GET', '/coverage')).body.summary.calls, 0, 'the default namespace saw nothing')

  const all = (await control('GET', '/coverage?all=true')).body
  t.equal(all.namespace, null)
  t.same(all.namespaces, ['default', 'team-a', 'team-b'], 'the default one first, then by name')
  t.same(callsOf(all), [1, 0, 2, 0])
  t.match(all.deprecatedCalls, [{ operationId: 'getPet', calls: 2 }])
  t.match(all.deprecatedCallsMessage, /^deprecated operations called \(every namespace\):\n- getPet .*: 2 calls,/)

  t.match(await control('GET', '/coverage?all=true&namespace=team-a'), {
    status: 400,
    body: { code: 'invalid_parameter', message: /leave out namespace/, status: 400 },
  })
})

t.test('COVERAGE_FILE: the report is written at shutdown; a restart starts an empty journal', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const json = join(dir, 'coverage.json')
  const markdown = join(dir, 'coverage.md')
  const first = await startControlSandbox(t, { DATA_FILE: dataFile, COVERAGE_FILE: json })
  await first.api('GET', '/pets/1')
  await first.api('POST', '/pets', { name: 'Kept', categoryId: 1 }, ns('ci'))
  await first.close()
  const written = JSON.parse(await readFile(json, 'utf8'))
  t.equal(written.namespace, null, 'every namespace')
  t.same(written.namespaces, ['default', 'ci'])
  t.same(callsOf(written), [0, 1, 1, 0])
  t.match(written.deprecatedCalls, [{ operationId: 'getPet', calls: 1, sunset: '2030-12-05T00:00:00.000Z' }])

  // The same data file: the pets survive the restart, the journal (and so the report) does not.
  const second = await startControlSandbox(t, { DATA_FILE: dataFile, COVERAGE_FILE: markdown })
  t.equal((await second.api('GET', '/pets/61', undefined, ns('ci'))).body?.name, 'Kept')
  const after = (await second.control('GET', '/coverage?all=true')).body
  t.same(callsOf(after), [0, 0, 1, 0], 'only the call made since the restart')
  await second.close()
  t.match(await readFile(markdown, 'utf8'), /^# API coverage: every namespace\n/, 'a .md file gets Markdown')
})
