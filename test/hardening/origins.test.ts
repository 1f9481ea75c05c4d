// Nobody drives the control API or reads the test data from a web page: no CORS on them unless
// ADMIN_CORS_ORIGINS asks, a Host the sandbox does not serve is refused (DNS rebinding), and the
// published default admin token opens only a sandbox other machines cannot reach.
import { request } from 'node:http'
import { hostname, networkInterfaces } from 'node:os'
import t from 'tap'
import { ConfigError, DEFAULT_ADMIN_TOKEN, loadConfig } from '../../src/config.js'
import { hostsServed, isLoopbackAddress, listensOnLoopbackOnly } from '../../src/http/hosts.js'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import { ADMIN_TOKEN } from '../support/control.js'
import { AUTH, startTestSandbox, testConfig } from '../support/sandbox.js'

const EVIL = 'https://evil.example'
const BY_DEFAULT = { authorization: `Bearer ${DEFAULT_ADMIN_TOKEN}` }
const CONFIGURED = { authorization: `Bearer ${ADMIN_TOKEN}` }

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  /** Parsed when it is JSON. */
  readonly body: any
}

/** A request with headers fetch may not set (Host), from `localAddress` when given. */
function send(
  origin: string,
  path: string,
  {
    method = 'GET',
    headers = {},
    localAddress,
  }: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Answer> {
  const url = new URL(path, origin)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers,
        localAddress,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => {
          const json = res.headers['content-type']?.startsWith('application/json') === true
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json ? JSON.parse(text) : text })
        })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

t.test('no CORS on the control API or the coverage page; the API keeps CORS_ORIGINS', async (t) => {
  const { origin } = await startTestSandbox(t) // the default admin token
  const preflight = {
    method: 'OPTIONS',
    headers: {
      origin: EVIL,
      'access-control-request-method': 'DELETE',
      'access-control-request-headers': 'authorization',
    },
  }
  const refused = await send(origin, '/__admin/namespaces/x', preflight)
  t.equal(refused.headers['access-control-allow-origin'], undefined, 'the preflight allows no origin')
  t.equal(refused.headers['access-control-allow-headers'], undefined, 'nor the Authorization header')
  const call = await send(origin, '/__admin/clock', { headers: { ...BY_DEFAULT, origin: EVIL } })
  t.equal(call.status, 200, 'a call with Origin is still answered (the browser withholds it)')
  t.equal(call.headers['access-control-allow-origin'], undefined, 'and no page may read it')
  const page = await send(origin, '/docs/coverage', { headers: { origin: EVIL } })
  t.equal(page.headers['access-control-allow-origin'], undefined, 'nor the coverage page')
  const api = await send(origin, '/v1/pets', {
    ...preflight,
    headers: { ...preflight.headers, 'access-control-request-method': 'GET' },
  })
  t.equal(api.headers['access-control-allow-origin'], '*', 'the API keeps CORS_ORIGINS=* by default')
})

t.test('ADMIN_CORS_ORIGINS opens the control API to the origins it names', async (t) => {
  const app = 'http://localhost:5173'
  const { origin } = await startTestSandbox(t, { ADMIN_CORS_ORIGINS: app, ADMIN_TOKEN })
  const preflight = (from: string) =>
    send(origin, '/__admin/reset', {
      method: 'OPTIONS',
      headers: {
        origin: from,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    })
  const allowed = await preflight(app)
  t.equal(allowed.headers['access-control-allow-origin'], app)
  t.match(allowed.headers['access-control-allow-headers'], /Authorization/)
  t.equal((await preflight(EVIL)).headers['access-control-allow-origin'], undefined, 'another origin is still refused')
  const page = await send(origin, '/docs/coverage', { headers: { origin: app } })
  t.equal(page.headers['access-control-allow-origin'], app, 'and the coverage page to them')
  t.throws(() => loadConfig([], { ADMIN_CORS_ORIGINS: 'localhost:5173' }), ConfigError)
})

t.test('a Host the sandbox does not serve is refused on the control API and the coverage page', async (t) => {
  const { origin } = await startTestSandbox(t) // loopback, the default admin token
  const port = new URL(origin).port
  const rebound = await send(origin, '/__admin/clock', { headers: { ...BY_DEFAULT, host: `attacker.example:${port}` } })
  t.equal(rebound.status, 421)
  t.match(rebound.body, { code: 'misdirected_request', status: 421, message: /"attacker\.example:\d+".*ALLOWED_HOSTS/ })
  const page = await send(origin, '/docs/coverage', { headers: { host: 'attacker.example' } })
  t.match(page, { status: 421, body: { code: 'misdirected_request' } }, 'the coverage page too')
  const api = await send(origin, '/v1/pets?limit=1', { headers: { ...AUTH, host: 'attacker.example' } })
  t.equal(api.status, 200, 'the API is guarded by its keys and CORS_ORIGINS, not by Host')

  for (const host of [`[::1]:${port}`, `app.localhost:${port}`, hostname(), 'LOCALHOST.'])
    t.equal((await send(origin, '/__admin/clock', { headers: { ...BY_DEFAULT, host } })).status, 200, `Host: ${host}`)
})

t.test('ALLOWED_HOSTS adds names; a configured token opens the control API under any name', async (t) => {
  const { origin } = await startTestSandbox(t, { ALLOWED_HOSTS: 'animal-store, Sandbox.test', ADMIN_TOKEN })
  for (const host of ['animal-store:4010', 'sandbox.test'])
    t.equal((await send(origin, '/docs/coverage', { headers: { host } })).status, 200, `Host: ${host}`)
  const elsewhere = { host: 'tests.example:4010' }
  t.equal((await send(origin, '/docs/coverage', { headers: elsewhere })).status, 421, 'the page needs a served name')
  const configured = await send(origin, '/__admin/clock', { headers: { ...CONFIGURED, ...elsewhere } })
  t.equal(configured.status, 200, 'a control call with the configured token: a rebinding page cannot know it')
  const guess = await send(origin, '/__admin/clock', { headers: { ...BY_DEFAULT, ...elsewhere } })
  t.equal(guess.status, 401, 'and a guess is refused as from anywhere')

  const any = await startTestSandbox(t, { ALLOWED_HOSTS: '*' })
  const anyName = await send(any.origin, '/__admin/clock', { headers: { ...BY_DEFAULT, ...elsewhere } })
  t.equal(anyName.status, 200, 'ALLOWED_HOSTS=*')
  for (const value of ['animal-store:4010', 'http://animal-store', '*,a'])
    t.throws(() => loadConfig([], { ALLOWED_HOSTS: value }), { name: 'ConfigError', message: /^ALLOWED_HOSTS/ }, value)
})

t.test('which Host names and remote addresses count as this machine', async (t) => {
  const served = hostsServed([], 'sandbox.internal')
  t.ok(served('sandbox.internal:4010'), 'the name HOST binds')
  t.ok(served(undefined), 'no Host: HTTP/1.0, never a browser')
  t.notOk(served('localhost.attacker.example'), 'a name that only starts like one')
  for (const address of ['127.3.2.1', '::1', '::ffff:127.0.0.1']) t.ok(isLoopbackAddress(address), address)
  for (const address of ['::ffff:10.0.0.1', 'fd00::2', undefined]) t.notOk(isLoopbackAddress(address), String(address))
  for (const host of ['localhost', '127.0.0.1']) t.ok(listensOnLoopbackOnly(host), host)
  for (const host of ['0.0.0.0', 'sandbox.internal']) t.notOk(listensOnLoopbackOnly(host), host)
})

// What the command then prints and serves: test/start/cli.test.ts.
t.test('beyond loopback without ADMIN_TOKEN the control API is off, and says why', async (t) => {
  const config = loadConfig([], { HOST: '0.0.0.0' })
  if (config === 'help') throw new Error('help')
  t.equal(config.adminToken, undefined)
  t.match(config.controlOffReason, /HOST lets other machines connect and no ADMIN_TOKEN is set/)
  t.match(loadConfig([], { HOST: '0.0.0.0', ADMIN_TOKEN }), { adminToken: ADMIN_TOKEN, controlOffReason: undefined })
  t.match(loadConfig([], { HOST: 'localhost' }), { adminToken: DEFAULT_ADMIN_TOKEN })
  t.throws(() => loadConfig([], { HOST: '0.0.0.0', ADMIN_TOKEN: DEFAULT_ADMIN_TOKEN }), {
    name: 'ConfigError',
    message: /^ADMIN_TOKEN is the published default, which HOST 0\.0\.0\.0 would open to other machines/,
  })
})

// Traffic to this machine's own non-loopback address stays on this machine.
const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((info) => info !== undefined && !info.internal && info.family === 'IPv4')?.address

t.test(
  'the default admin token is refused from a non-loopback address',
  { skip: ownAddress === undefined && 'this machine has no non-loopback IPv4 address' },
  async (t) => {
    const address = ownAddress as string
    // As an embedding could set it: the default token on every interface, which the settings never allow.
    const config = { ...(await testConfig(t)), host: '0.0.0.0' }
    const sandbox = await startSandbox(config, createLogger('silent'))
    t.teardown(() => sandbox.close())
    const { port } = new URL(sandbox.origin)
    const options = { headers: BY_DEFAULT, localAddress: address }
    const fromAfar = await send(`http://${address}:${port}`, '/__admin/clock', options)
    t.equal(fromAfar.status, 401)
    t.match(fromAfar.body, {
      code: 'unauthorized',
      message: /default admin token is accepted only from this machine \(loopback\)/,
    })
    t.match(fromAfar.headers['www-authenticate'], /error="invalid_token"/)
    const fromHere = await send(sandbox.origin, '/__admin/clock', { headers: BY_DEFAULT })
    t.equal(fromHere.status, 200, 'from loopback it opens')
  },
)
