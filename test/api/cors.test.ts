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

t.test('any origin by default', async (t) => {
  const { baseUrl, origin: sandbox } = await startTestSandbox(t)
  for (const path of ['/pets', '/pets/7', '/store/orders', '/no/such/path']) {
    const res = await preflight(baseUrl + path, 'http://app.test:3000')
    t.equal(res.status, 204, `preflight OPTIONS ${path} → 204, not the 405 or 404 of the route`)
    t.equal(res.headers.get('access-control-allow-origin'), '*')
    t.match(res.headers.get('access-control-allow-methods'), /\bGET\b.*\bPOST\b/, 'the API methods are allowed')
    t.match(res.headers.get('access-control-allow-headers'), /\bAuthorization\b/)
    t.match(res.headers.get('access-control-allow-headers'), /\bContent-Type\b/)
    t.match(res.headers.get('access-control-allow-headers'), /\btraceparent\b.*\bbaggage\b/, 'the W3C trace headers')
    t.equal(res.headers.get('vary'), null, 'no Vary: Origin when the answer is the same for every origin')
    t.equal(await res.text(), '', 'no body')
  }

  const cases: Array<[string, RequestInit, number]> = [
    ['/pets', { headers: AUTH }, 200],
    ['/pets', {}, 401],
    ['/pets?limit=0', { headers: AUTH }, 400],
    ['/pets/9999', { headers: AUTH }, 404],
    ['/pets', { method: 'DELETE', headers: AUTH }, 405],
    ['/store/orders', { headers: AUTH }, 501],
  ]
  for (const [path, init, status] of cases) {
    const res = await fetch(baseUrl + path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), origin: 'http://app.test:3000' },
    })
    t.equal(res.status, status, `${init.method ?? 'GET'} ${path} → ${status}`)
    t.equal(
      res.headers.get('access-control-allow-origin'),
      '*',
      `${init.method ?? 'GET'} ${path} → ${status} is readable by the page`,
    )
    await res.arrayBuffer()
  }
  const created = await fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', origin: 'http://app.test:3000' },
    body: '{"name":"Rex","categoryId":1}',
  })
  t.equal(created.status, 201)
  t.match(
    created.headers.get('access-control-expose-headers'),
    /\bLocation\b/,
    'a browser app may read the new pet’s Location',
  )
  t.match(created.headers.get('access-control-expose-headers'), /\bSunset\b/, 'and the deprecation headers')

  const plain = await fetch(`${baseUrl}/pets`, {
    method: 'OPTIONS',
    headers: { ...AUTH, origin: 'http://app.test:3000' },
  })
  t.equal(plain.status, 405, 'an OPTIONS that is not a preflight still meets the route’s 405')
  t.equal(plain.headers.get('allow'), 'GET, POST, HEAD')
  t.equal(plain.headers.get('access-control-allow-origin'), '*')

  // No Origin: not a browser's cross-origin request, so there is nothing to allow.
  for (const [path, init] of [
    ['/pets', { headers: AUTH }],
    ['/pets', {}],
    ['/pets/7', { headers: AUTH }],
  ] as const) {
    const res = await fetch(baseUrl + path, init)
    t.equal(
      res.headers.get('access-control-allow-origin'),
      null,
      `GET ${path} → ${res.status} without Origin: no CORS headers`,
    )
    t.equal(res.headers.get('access-control-expose-headers'), null)
    t.equal(res.headers.get('vary'), null)
    await res.arrayBuffer()
  }

  const health = await fetch(`${sandbox}/healthz`, { headers: { origin: 'http://app.test:3000' } })
  t.equal(health.headers.get('access-control-allow-origin'), '*', 'outside the API too')
})

t.test('CORS_ORIGINS: only the listed origins', async (t) => {
  const allowed = ['http://app.test:3000', 'https://ui.example']
  const { baseUrl } = await startTestSandbox(t, { CORS_ORIGINS: allowed.join(', ') })

  for (const origin of allowed) {
    const res = await preflight(`${baseUrl}/pets`, origin)
    t.equal(res.status, 204)
    t.equal(res.headers.get('access-control-allow-origin'), origin, `${origin} is echoed back`)
    t.equal(res.headers.get('vary'), 'Origin', 'and caches are told the answer depends on Origin')
    t.match(res.headers.get('access-control-allow-methods'), /\bPOST\b/)
  }

  const refused = await preflight(`${baseUrl}/pets`, 'http://evil.test')
  t.equal(refused.status, 204, 'an unlisted origin gets an answer…')
  t.equal(refused.headers.get('access-control-allow-origin'), null, '…without the allow headers, so the browser stops')
  t.equal(refused.headers.get('access-control-allow-methods'), null)
  t.equal(refused.headers.get('vary'), 'Origin')

  const error = await fetch(`${baseUrl}/pets`, { headers: { origin: 'https://ui.example' } })
  t.equal(error.status, 401)
  t.equal(
    error.headers.get('access-control-allow-origin'),
    'https://ui.example',
    'an Error response carries the matching origin',
  )
  t.equal(error.headers.get('vary'), 'Origin')
  t.match(await error.json(), { code: 'unauthorized', status: 401, message: String }, 'and its Error body is unchanged')

  const other = await fetch(`${baseUrl}/pets`, { headers: { ...AUTH, origin: 'http://evil.test' } })
  t.equal(other.status, 200, 'CORS is the browser’s business: the server still answers')
  t.equal(other.headers.get('access-control-allow-origin'), null, 'but a page from an unlisted origin cannot read it')
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
  for (const bad of ['http://a.test/', 'a.test', 'http://a.test/app', '*, http://a.test', ' , ']) {
    t.throws(() => read({ CORS_ORIGINS: bad }), ConfigError, `CORS_ORIGINS=${JSON.stringify(bad)} is refused`)
    t.throws(() => read({ CORS_ORIGINS: bad }), { message: /CORS_ORIGINS/ }, 'naming the setting')
  }
  t.throws(() => read({}, ['--cors-origins', 'nope']), { message: /--cors-origins/ }, 'a bad flag names the flag')
})
