// Compare mode sends upstream only what the sandbox served, and only with the upstream's key: a
// request it refused (its key, its parameters, its body, its route) or one carrying a sandbox
// secret never leaves, and no header a client sent (its bearer, cookies, an API key header) goes
// with the ones that do.
import t from 'tap'
import { API_KEY, AUTH, startTestSandbox } from '../support/sandbox.js'
import { standInFor } from './stand-in.js'

const UPSTREAM_KEY = 'upstream-secret-key-3b8e'
const ADMIN_TOKEN = 'forwarding-admin-token-c2d1'
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` }

t.test('a refused request never reaches the upstream; a served one carries no client credential', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  const { origin, baseUrl } = await startTestSandbox(t, {
    ADMIN_TOKEN,
    ...upstream,
    UPSTREAM_UNSAFE: 'on',
  })
  const json = { ...AUTH, 'content-type': 'application/json' }
  const kept: [string, number, string, RequestInit][] = [
    ['the admin token sent to the API by mistake', 401, '/pets', { headers: ADMIN }],
    ['no key', 401, '/pets', {}],
    ['a bad parameter', 400, '/pets?limit=many', { headers: AUTH }],
    ['a body that breaks the schema', 400, '/pets', { method: 'POST', headers: json, body: '{"name":"x"}' }],
    [
      'a body not JSON',
      415,
      '/pets',
      { method: 'POST', headers: { ...AUTH, 'content-type': 'text/plain' }, body: 'x' },
    ],
    ['a body too large', 413, '/pets', { method: 'POST', headers: json, body: `"${'x'.repeat(2 * 1024 * 1024)}"` }],
    ['no such route', 404, '/nowhere', { headers: AUTH }],
    ['a method not allowed', 405, '/pets', { method: 'DELETE', headers: AUTH }],
    // Served, as the sandbox ignores a query parameter it does not know, but not sent on.
    ['the admin token in the query', 200, `/pets?limit=1&token=${ADMIN_TOKEN}`, { headers: AUTH }],
  ]
  for (const [name, status, target, init] of kept) {
    const answer = await fetch(`${baseUrl}${target}`, init)
    t.equal(answer.status, status, `${name}: ${status}`)
    await answer.arrayBuffer()
  }
  // Served: a list, and a pet that is not there (an answer about the data, not a refusal).
  const credentials = {
    cookie: `session=${API_KEY}`,
    'x-api-key': API_KEY,
    'proxy-authorization': `Bearer ${ADMIN_TOKEN}`,
    'x-custom-token': ADMIN_TOKEN,
  }
  for (const [target, status] of [
    ['/pets?limit=1', 200],
    ['/pets/999999', 404],
  ] as const) {
    const answer = await fetch(`${baseUrl}${target}`, { headers: { ...AUTH, ...credentials } })
    t.equal(answer.status, status)
    await answer.arrayBuffer()
  }

  const report = (await (await fetch(`${origin}/__admin/drift`, { headers: ADMIN })).json()) as {
    compared: number
    skipped: number
  }
  t.equal(report.compared, 2, 'the two served requests were compared')
  t.equal(report.skipped, 7, 'the requests of an operation not sent are counted as skipped (a route unknown is none)')
  t.equal(standIn.received.length, 2, 'the upstream received the two served requests alone')
  t.same(standIn.authorizations, [`Bearer ${UPSTREAM_KEY}`, `Bearer ${UPSTREAM_KEY}`], 'each with its own key')
  for (const headers of standIn.received) {
    t.notOk('cookie' in headers || 'x-api-key' in headers || 'proxy-authorization' in headers, 'no credential header')
    const sent = JSON.stringify(headers)
    t.notOk(sent.includes(API_KEY) || sent.includes(ADMIN_TOKEN), 'no sandbox secret in any header')
  }
})
