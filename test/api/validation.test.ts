// Strict validation from the spec: every bad input gets a 400 (or 413/415) Error naming what is wrong.
import { request } from 'node:http'
import t from 'tap'
import { AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'

const PLAIN = "must be a plain decimal integer, without '+' or leading zeros"

t.test('query and path parameters', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  // [url, what the message names]: integers have one written form, and none beyond 2^53-1 (docs/decisions.md).
  const cases: Array<[string, string]> = [
    ...['0', '101', '-1', 'abc', '1.5', '', '1e2', '1.0', '2147483648', '9007199254740993', '99999999999999999999'].map(
      (limit): [string, string] => [`/pets?limit=${limit}`, 'query.limit'],
    ),
    ['/pets?limit=123456789012345678901234567890', 'query.limit'],
    ['/pets?limit=5&limit=6', 'limit is given more than once'],
    ['/pets?status=lost', 'query.status'],
    ['/pets?status=Available', 'query.status'],
    ['/pets?status=', 'query.status'],
    ...['abc', '1.5', '-', '1.0', '1e3', '9007199254740992', '9007199254740993', '9223372036854775807'].map(
      (id): [string, string] => [`/pets/${id}`, 'path.petId'],
    ),
    ['/pets/-9223372036854775809', 'path.petId'],
    ['/pets/123456789012345678901234', 'path.petId'],
    ...['/pets/01', '/pets/+1', '/pets/-0', '/pets?limit=010', '/pets?limit=%2B5', '/pets?limit=05'].map(
      (url): [string, string] => [url, PLAIN],
    ),
  ]
  for (const [url, names] of cases) {
    const res = await fetch(baseUrl + url, { headers: AUTH })
    t.equal(res.status, 400, `GET ${url} → 400`)
    const body = (await res.json()) as { code: string; message: string; status: number }
    t.match(body, { code: 'invalid_parameter', status: 400 })
    t.match(body.message, names, `the message names it: ${body.message}`)
  }
  t.equal(((await (await fetch(`${baseUrl}/pets?limit=5`, { headers: AUTH })).json()) as unknown[]).length, 5)
  t.equal((await fetch(`${baseUrl}/pets/1`, { headers: AUTH })).status, 200, '/pets/1 is the one form')
  const max = await fetch(`${baseUrl}/pets/9007199254740991`, { headers: AUTH })
  t.equal(max.status, 404, '2^53-1 is a valid id that does not exist')
})

t.test('request bodies', async (t) => {
  const { baseUrl, store } = await startTestSandbox(t)
  const before = store.size
  const cases: Array<[what: string, body: string, code: string, names: string]> = [
    ['malformed JSON', '{"name":', 'malformed_json', 'not valid JSON'],
    ['an empty body', '', 'invalid_body', 'required'],
    ['an array', '[]', 'invalid_body', 'body must be a JSON object'],
    ['a string', '"Rex"', 'invalid_body', 'body must be a JSON object'],
    ['null', 'null', 'invalid_body', 'body must be a JSON object'],
    ['a number', '7', 'invalid_body', 'body must be a JSON object'],
    ['no name', '{"categoryId":1}', 'invalid_body', 'body.name is required'],
    ['no categoryId', '{"name":"Rex"}', 'invalid_body', 'body.categoryId is required'],
    ['an empty object', '{}', 'invalid_body', 'body.name is required; body.categoryId is required'],
    [
      'a numeric string categoryId',
      '{"name":"Rex","categoryId":"7"}',
      'invalid_body',
      'body.categoryId must be an integer',
    ],
    [
      'a fractional categoryId',
      '{"name":"Rex","categoryId":1.5}',
      'invalid_body',
      'body.categoryId must be an integer',
    ],
    ['a boolean categoryId', '{"name":"Rex","categoryId":true}', 'invalid_body', 'body.categoryId must be an integer'],
    ['a numeric name', '{"name":7,"categoryId":1}', 'invalid_body', 'body.name must be a string'],
    ['a null name', '{"name":null,"categoryId":1}', 'invalid_body', 'body.name must be a string'],
    [
      'an unknown status',
      '{"name":"Rex","categoryId":1,"status":"lost"}',
      'invalid_body',
      'body.status must be one of: available, pending, sold',
    ],
    ['a status in the wrong case', '{"name":"Rex","categoryId":1,"status":"SOLD"}', 'invalid_body', 'body.status'],
  ]
  for (const [what, sent, code, names] of cases) {
    const res = await fetch(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS, body: sent })
    t.equal(res.status, 400, `${what} → 400`)
    const body = (await res.json()) as { code: string; message: string; status: number }
    t.match(body, { code, status: 400 }, `${what}: code ${code}`)
    t.match(body.message, names, `${what}: ${body.message}`)
  }
  t.equal(store.size, before, 'no bad request added a pet')
})

t.test('content types', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const body = '{"name":"Rex","categoryId":1}'
  const post = (contentType: string | undefined) =>
    fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, ...(contentType ? { 'content-type': contentType } : {}) },
      body: Buffer.from(body),
    })
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    undefined,
  ]) {
    const res = await post(type)
    t.equal(res.status, 415, `Content-Type ${type ?? '(none)'} → 415`)
    t.match(await res.json(), { code: 'unsupported_media_type', status: 415 })
  }
  for (const type of [
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset="UTF-8"',
    'application/merge-patch+json',
  ]) {
    const res = await post(type)
    t.equal(res.status, 201, `Content-Type ${type} → 201`)
    await res.body?.cancel()
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

t.test('malformed HTTP gets the Error contract too', async (t) => {
  const { server } = await startTestSandbox(t)
  const { port } = server.address() as { port: number }
  const { connect } = await import('node:net')
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('GARBAGE / HTTP/1.1\r\n\r\n'))
    let text = ''
    socket.on('data', (chunk) => (text += chunk.toString()))
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
  t.match(answer, /^HTTP\/1\.1 400 /)
  t.match(answer, /Content-Type: application\/json/)
  t.match(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { code: 'bad_request', status: 400 })
})
