// HTTP details a strict sandbox must get right, found by checkers from outside the project: bytes
// that are not UTF-8, forced answers that look like their genuine twins, HEAD wherever GET is
// served, and an Error body for malformed HTTP and a request without Host. All over a real socket.
import t from 'tap'
import { jsonDepth, MAX_JSON_DEPTH } from '../../src/http/body.js'
import { rawExchange } from '../../scripts/lib/raw-http.js'
import { startControlSandbox } from '../support/control.js'
import { AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'

t.test('a body that is not UTF-8 is refused, with or without charset, and nothing is stored', async (t) => {
  const { baseUrl, store } = await startTestSandbox(t)
  const before = store.size
  const notUtf8 = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('","categoryId":1}')])
  for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
    const res = await fetch(`${baseUrl}/pets`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': contentType },
      body: notUtf8,
    })
    t.equal(res.status, 415, `${contentType}: 415`)
    t.match(await res.json(), { status: 415, code: 'unsupported_media_type', message: /not valid UTF-8/ })
  }
  t.equal(store.size, before, 'no pet was stored')
  const valid = await fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ name: 'café', categoryId: 1 }),
  })
  t.match(await valid.json(), { name: 'café' }, 'valid UTF-8 keeps its characters')
})

t.test('every forced answer carries the headers of its genuine twin, with the same Error body shape', async (t) => {
  const { baseUrl, control } = await startControlSandbox(t)
  const arm = (operationId: string, status: number) => control('POST', '/faults', { operationId, status, times: 1 })
  const create = () =>
    fetch(`${baseUrl}/pets`, { method: 'POST', headers: JSON_HEADERS, body: '{"name":"Rex","categoryId":1}' })
  const headersOf = (res: Response): Record<string, string | null> => ({
    'www-authenticate': res.headers.get('www-authenticate'),
    'retry-after': res.headers.get('retry-after'),
    allow: res.headers.get('allow'),
    deprecation: res.headers.get('deprecation'),
    sunset: res.headers.get('sunset'),
    link: res.headers.get('link'),
  })
  const shape = { status: Number, code: String, message: String }

  // 401: the genuine one has no key.
  const genuine401 = await fetch(`${baseUrl}/pets/1`)
  const preferred401 = await fetch(`${baseUrl}/pets/1`, { headers: { ...AUTH, prefer: 'code=401' } })
  await arm('getPet', 401)
  const fault401 = await fetch(`${baseUrl}/pets/1`, { headers: AUTH })
  for (const [how, res] of [
    ['Prefer', preferred401],
    ['fault', fault401],
  ] as const) {
    t.equal(res.status, 401, `${how}: 401`)
    t.same(
      headersOf(res),
      headersOf(genuine401),
      `${how}: the headers of a genuine 401 of getPet (WWW-Authenticate, deprecation)`,
    )
    t.match(await res.json(), shape)
  }
  t.match(genuine401.headers.get('www-authenticate'), /^Bearer realm=/)

  // 405: the genuine one is a method the path does not serve.
  const genuine405 = await fetch(`${baseUrl}/pets`, { method: 'DELETE', headers: AUTH })
  await arm('listPets', 405)
  const fault405 = await fetch(`${baseUrl}/pets`, { headers: AUTH })
  t.equal(fault405.status, 405)
  t.equal(fault405.headers.get('allow'), genuine405.headers.get('allow'), 'a forced 405 has the Allow of a genuine one')
  t.match(await fault405.json(), shape)

  // 503 and 429: the genuine 503 (a full disk) says when to try again; forced ones say the same.
  for (const status of [503, 429]) {
    await arm('createPet', status)
    const forced = await create()
    t.equal(forced.status, status)
    t.equal(forced.headers.get('retry-after'), '1', `a forced ${status} has Retry-After`)
    t.match(await forced.json(), shape)
  }
  // listOrders' default response takes any status: Prefer may force a 503 there.
  const preferred503 = await fetch(`${baseUrl}/store/orders`, { headers: { ...AUTH, prefer: 'code=503' } })
  t.equal(preferred503.headers.get('retry-after'), '1', 'Prefer: code=503 has Retry-After')
  await preferred503.arrayBuffer()
  // The clock's 410 and its deprecation headers: test/namespaces/clock.test.ts.
})

t.test('HEAD is served wherever GET is: the GET answer without its body', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  for (const path of ['/pets', '/pets/1']) {
    const get = await fetch(`${baseUrl}${path}`, { headers: AUTH })
    const head = await fetch(`${baseUrl}${path}`, { method: 'HEAD', headers: AUTH })
    t.equal(head.status, get.status, `HEAD ${path}: the status of GET`)
    t.equal(
      head.headers.get('content-length'),
      get.headers.get('content-length'),
      `HEAD ${path}: the length GET's body has`,
    )
    t.equal((await head.arrayBuffer()).byteLength, 0, `HEAD ${path}: no body`)
    await get.arrayBuffer()
  }
  t.equal((await fetch(`${baseUrl}/pets`, { method: 'HEAD' })).status, 401, 'HEAD needs the key like GET')
  const wrong = await fetch(`${baseUrl}/pets`, { method: 'PATCH', headers: AUTH })
  t.equal(wrong.headers.get('allow'), 'GET, POST, HEAD', 'Allow lists HEAD')
})

t.test('malformed HTTP, and an HTTP/1.1 request without Host, get a 400 with an Error body', async (t) => {
  const { server } = await startTestSandbox(t)
  const { port } = server.address() as { port: number }
  for (const [request, message] of [
    ['GARBAGE / HTTP/1.1\r\n\r\n', /not valid HTTP/],
    ['GET /v1/pets HTTP/1.1\r\nAuthorization: Bearer test-key-1\r\n\r\n', /Host/],
  ] as const) {
    const answer = await rawExchange(port, Buffer.from(request))
    t.equal(answer?.status, 400)
    t.match(answer?.headers['content-type'], /^application\/json/)
    t.match(JSON.parse(answer?.body.toString() ?? 'null'), { status: 400, code: 'bad_request', message })
  }
  const withHost = await rawExchange(
    port,
    Buffer.from('GET /v1/pets?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key-1\r\n\r\n'),
  )
  t.equal(withHost?.status, 200, 'with Host it is served')
})

t.test('jsonDepth counts the nesting of arrays and objects, never brackets inside strings', (t) => {
  const pad = ' '.repeat(2 * MAX_JSON_DEPTH)
  const cases: Array<[string, number]> = [
    ['{"a":[1,{"b":[]}]}', 4],
    ['["[[[[", "\\"[[[", {"k\\\\": "]]]]"}]', 2],
    ['"{{{{"', 0],
    [`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`, MAX_JSON_DEPTH + 1],
  ]
  for (const [text, depth] of cases) {
    JSON.parse(text)
    t.equal(jsonDepth(text + pad), depth, text.slice(0, 40))
  }
  t.end()
})
