// Strict validation from the spec: every bad input gets a 400 (or 413/415) Error naming what is wrong.
import { request } from 'node:http'
import t from 'tap'
import { answerOf, call } from '../support/control.js'
import { AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'

const PLAIN = "must be a plain decimal integer, without '+' or leading zeros"

t.test('query and path parameters', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  // [url, what the message names]: integers have one written form, and none beyond 2^53-1 (docs/decisions.md).
  const cases: Array<[string, string]> = [
    ...['0', '101', 'abc', '', '1e2', '9007199254740993'].map((limit): [string, string] => [
      `/pets?limit=${limit}`,
      'query.limit',
    ]),
    ['/pets?limit=5&limit=6', 'limit is given more than once'],
    ['/pets?status=lost', 'query.status'],
    ['/pets?status=Available', 'query.status'],
    ...['abc', '-', '1e3', '9007199254740992'].map((id): [string, string] => [`/pets/${id}`, 'path.petId']),
    ...['/pets/01', '/pets/+1', '/pets/-0', '/pets?limit=%2B5'].map((url): [string, string] => [url, PLAIN]),
    // A 1000-digit number is an integer out of range, not "not an integer".
    [
      `/pets/${'9'.repeat(1000)}`,
      'Invalid path parameter: path.petId must be an integer from -9007199254740991 to 9007199254740991 (larger numbers lose precision in JSON)',
    ],
    [`/pets?limit=${'9'.repeat(1000)}`, 'Invalid query parameter: query.limit must be <= 100'],
  ]
  for (const [url, message] of cases) {
    const answer = await call(baseUrl + url, 'GET', undefined, AUTH)
    t.match(answer, { status: 400, body: { code: 'invalid_parameter', status: 400, message } }, `GET ${url}`)
  }
  t.equal(((await (await fetch(`${baseUrl}/pets?limit=5`, { headers: AUTH })).json()) as unknown[]).length, 5)
  t.equal((await fetch(`${baseUrl}/pets/1`, { headers: AUTH })).status, 200, '/pets/1 is the one form')
  const max = await fetch(`${baseUrl}/pets/9007199254740991`, { headers: AUTH })
  t.equal(max.status, 404, '2^53-1 is a valid id that does not exist')
})

t.test('request bodies', async (t) => {
  const { baseUrl, store } = await startTestSandbox(t)
  const before = store.size
  // One accurate reason per faulty field, and only those; every bad body's status and Error body:
  // the conformance suite (conformance/cases.ts).
  const cases: Array<[body: string, message: string]> = [
    ['', 'The request body is required: send a JSON object'],
    ['[]', 'Invalid request body: body must be a JSON object'],
    ['{"name":"Rex","categoryId":"7"}', 'Invalid request body: body.categoryId must be an integer'],
    ['{"name":"Rex","categoryId":1.5}', 'Invalid request body: body.categoryId must be an integer'],
    ...['"SOLD"', 'null'].map((status): [string, string] => [
      `{"name":"Rex","categoryId":1,"status":${status}}`,
      'Invalid request body: body.status must be one of: available, pending, sold',
    ]),
    [
      '{"name":5,"categoryId":"x"}',
      'Invalid request body: body.name must be a string; body.categoryId must be an integer',
    ],
    ['{"categoryId":1}', 'Invalid request body: body.name is required'],
  ]
  const post = async (body: string) =>
    answerOf(await fetch(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS, body }))
  for (const [body, message] of cases) {
    const { status, body: error } = await post(body)
    t.same([status, error], [400, { code: 'invalid_body', message, status: 400 }], body)
  }
  t.match(await post('{"name":'), { status: 400, body: { code: 'malformed_json', message: 'not valid JSON' } })
  t.equal(store.size, before, 'no bad request added a pet')
})

t.test('content types: JSON in any case and charset, UTF-8 only; anything else is a 415', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  for (const [type, status] of [
    ['text/plain', 415],
    ['application/json; charset=latin1', 415],
    [undefined, 415],
    ['application/json', 201],
    ['Application/JSON;charset="UTF-8"', 201],
    ['application/merge-patch+json', 201],
  ] as const) {
    const headers = { ...AUTH, ...(type ? { 'content-type': type } : {}) }
    const res = await fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers,
      body: Buffer.from('{"name":"Rex","categoryId":1}'),
    })
    t.match(
      await answerOf(res),
      { status, body: status === 415 ? { code: 'unsupported_media_type' } : { name: 'Rex' } },
      type ?? '(none)',
    )
  }
})

t.test('a body over 1 MiB gets 413 without being read whole', async (t) => {
  const { baseUrl, store } = await startTestSandbox(t)
  const before = store.size
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), categoryId: 1 })

  const declared = await fetch(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS, body: big })
  t.equal(declared.status, 413, 'a declared Content-Length over the cap → 413')
  t.match(await declared.json(), { code: 'payload_too_large', status: 413 })

  // Chunked: no Content-Length, so the cap applies while reading.
  const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => (text += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    const piece = Buffer.alloc(64 * 1024, 'x')
    req.write('{"name":"')
    let sent = 0
    const pump = (): void => {
      while (sent < 2 * 1024 * 1024) {
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      req.end('","categoryId":1}')
    }
    pump()
  })
  t.equal(chunked.status, 413, 'a chunked body over the cap → 413')
  t.match(JSON.parse(chunked.body), { code: 'payload_too_large' })

  // The bulk in a property the store ignores: a name that long is past the sandbox's bound.
  const justUnder = JSON.stringify({ name: 'Rex', categoryId: 1, notes: 'y'.repeat(1024 * 1024 - 60) })
  const ok = await fetch(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS, body: justUnder })
  t.equal(ok.status, 201, 'a body just under 1 MiB is accepted')
  await ok.body?.cancel()
  t.equal(store.size, before + 1)
})
