// CORS: preflights answered before routing, and every answer (Error bodies too) readable by the
// origins the CORS_ORIGINS setting allows.
import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'
import { AUTH, startTestSandbox } from '../support/sandbox.js'

const preflight = (url: string, origin: string, method = 'POST') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    },
  })
const APP = 'http://app.test:3000'
/** The CORS headers of an answer, by short names. */
const cors = (res: Response) => ({
  origin: res.headers.get('access-control-allow-origin'),
  methods: res.headers.get('access-control-allow-methods'),
  headers: res.headers.get('access-control-allow-headers'),
  expose: res.headers.get('access-control-expose-headers'),
  vary: res.headers.get('vary'),
})

t.test('any origin by default', async (t) => {
  const { baseUrl, origin: sandbox } = await startTestSandbox(t)
  for (const path of ['/pets', '/no/such/path']) {
    const res = await preflight(baseUrl + path, APP)
    t.equal(res.status, 204, `preflight OPTIONS ${path} → 204, not the 405 or 404 of the route`)
    // The API's methods and headers, the W3C trace headers too; no Vary: the same for every origin.
    t.match(cors(res), {
      origin: '*',
      methods: /\bGET\b.*\bPOST\b/,
      headers: /\bAuthorization\b.*\bContent-Type\b.*\btraceparent\b.*\bbaggage\b.*\bIdempotency-Key\b/,
      vary: null,
    })
    t.equal(await res.text(), '', 'no body')
  }

  const cases: Array<[string, RequestInit, number]> = [
    ['/pets', { headers: AUTH }, 200],
    ['/pets', {}, 401],
    ['/store/orders', { headers: AUTH }, 501],
  ]
  for (const [path, init, status] of cases) {
    const res = await fetch(baseUrl + path, { ...init, headers: { ...(init.headers as object), origin: APP } })
    t.match([res.status, cors(res).origin], [status, '*'], `${init.method ?? 'GET'} ${path} → ${status}, readable`)
    await res.arrayBuffer()
  }
  const created = await fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', origin: APP },
    body: '{"name":"Rex","categoryId":1}',
  })
  t.equal(created.status, 201)
  t.match(
    cors(created).expose,
    /\bLocation\b.*\bSunset\b.*\bIdempotent-Replayed\b/,
    'a page may read the Location and deprecation headers, and whether a create was replayed',
  )

  const plain = await fetch(`${baseUrl}/pets`, { method: 'OPTIONS', headers: { ...AUTH, origin: APP } })
  t.equal(plain.status, 405, 'an OPTIONS that is not a preflight still meets the route’s 405')
  t.equal(plain.headers.get('allow'), 'GET, POST, HEAD')
  t.equal(cors(plain).origin, '*')

  // No Origin: not a browser's cross-origin request, so there is nothing to allow.
  for (const [path, init] of [
    ['/pets', { headers: AUTH }],
    ['/pets', {}],
  ] as const) {
    const res = await fetch(baseUrl + path, init)
    t.match(cors(res), { origin: null, expose: null, vary: null }, `GET ${path} → ${res.status}: no CORS headers`)
    await res.arrayBuffer()
  }

  const health = await fetch(`${sandbox}/healthz`, { headers: { origin: APP } })
  t.equal(cors(health).origin, '*', 'outside the API too')
})

t.test('CORS_ORIGINS: only the listed origins', async (t) => {
  const allowed = [APP, 'https://ui.example']
  const { baseUrl } = await startTestSandbox(t, { CORS_ORIGINS: allowed.join(', ') })

  for (const origin of allowed) {
    const res = await preflight(`${baseUrl}/pets`, origin)
    t.equal(res.status, 204)
    // Echoed back, and caches told the answer depends on Origin.
    t.match(cors(res), { origin, vary: 'Origin', methods: /\bPOST\b/ }, `${origin} is allowed`)
  }

  const refused = await preflight(`${baseUrl}/pets`, 'http://evil.test')
  t.equal(refused.status, 204, 'an unlisted origin gets an answer…')
  t.match(cors(refused), { origin: null, methods: null, vary: 'Origin' }, '…without the allow headers')

  const error = await fetch(`${baseUrl}/pets`, { headers: { origin: 'https://ui.example' } })
  t.match(cors(error), { origin: 'https://ui.example', vary: 'Origin' }, 'an Error answer carries the matching origin')
  t.match(await error.json(), { code: 'unauthorized', status: 401, message: String }, 'and its Error body is unchanged')

  const other = await fetch(`${baseUrl}/pets`, { headers: { ...AUTH, origin: 'http://evil.test' } })
  t.equal(other.status, 200, 'CORS is the browser’s business: the server still answers')
  t.equal(cors(other).origin, null, 'but a page from an unlisted origin cannot read it')
  await other.arrayBuffer()
})

t.test('the CORS_ORIGINS setting', async (t) => {
  const read = (env: Record<string, string>, argv: string[] = []) => {
    const config = loadConfig(argv, env)
    if (config === 'help') throw new Error('unexpected help')
    return config.corsOrigins
  }
  t.same(read({}), ['*'], 'default: any origin')
  t.same(
    read({ CORS_ORIGINS: ' http://a.test:3000 ,https://b.example ' }),
    ['http://a.test:3000', 'https://b.example'],
    'comma-separated, trimmed',
  )
  t.same(
    read({ CORS_ORIGINS: 'http://a.test' }, ['--cors-origins', 'http://b.test']),
    ['http://b.test'],
    'the flag wins over the variable',
  )
  for (const bad of ['http://a.test/', 'a.test', '*, http://a.test']) {
    t.throws(() => read({ CORS_ORIGINS: bad }), ConfigError, `CORS_ORIGINS=${JSON.stringify(bad)} is refused`)
    t.throws(() => read({ CORS_ORIGINS: bad }), { message: /CORS_ORIGINS/ }, 'naming the setting')
  }
  t.throws(() => read({}, ['--cors-origins', 'nope']), { message: /--cors-origins/ }, 'a bad flag names the flag')
})
