// Bearer auth: missing, malformed, unknown and valid keys; auth before validation. (That every
// operation refuses a missing or unknown key with its challenge: the conformance suite.)
import t from 'tap'
import { API_KEY, startTestSandbox } from '../support/sandbox.js'

const CREDENTIALS: Array<{ name: string; header: string | undefined; valid: boolean; error?: string }> = [
  { name: 'no Authorization header', header: undefined, valid: false },
  { name: 'an empty Authorization header', header: '', valid: false },
  { name: 'a wrong scheme', header: `Basic ${API_KEY}`, valid: false, error: 'invalid_request' },
  { name: 'the scheme without a token', header: 'Bearer', valid: false, error: 'invalid_request' },
  { name: 'a token with a space inside', header: `Bearer ${API_KEY} extra`, valid: false, error: 'invalid_request' },
  { name: 'an unknown key', header: 'Bearer not-a-key', valid: false, error: 'invalid_token' },
  {
    name: 'the default key, with keys configured',
    header: 'Bearer sandbox-api-key',
    valid: false,
    error: 'invalid_token',
  },
  { name: 'the key with the scheme in lower case', header: `bearer ${API_KEY}`, valid: true },
  { name: 'the second configured key', header: 'Bearer test-key-2', valid: true },
]

t.test('every credential', async (t) => {
  const { baseUrl } = await startTestSandbox(t, { API_KEYS: `${API_KEY}, test-key-2` })
  for (const cred of CREDENTIALS) {
    const headers: Record<string, string> = cred.header === undefined ? {} : { authorization: cred.header }
    const res = await fetch(`${baseUrl}/pets?limit=1`, { headers })
    const body = (await res.json()) as Record<string, unknown>
    if (cred.valid) {
      t.equal(res.status, 200, `${cred.name} → 200`)
      continue
    }
    t.equal(res.status, 401, `${cred.name} → 401`)
    t.same(Object.keys(body).sort(), ['code', 'message', 'status'])
    t.match(body, { code: 'unauthorized', status: 401 })
    const challenge = res.headers.get('www-authenticate') ?? ''
    t.match(challenge, /^Bearer realm="animal-store"/, 'with a Bearer challenge')
    if (cred.error) t.match(challenge, `error="${cred.error}"`)
    t.notMatch(JSON.stringify(body), API_KEY, 'the error never echoes a key')
  }
})

t.test('auth is checked before validation', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const post = (body: string, type: string) => ({ method: 'POST', body, headers: { 'content-type': type } })
  for (const [url, init] of [
    ['/pets?limit=0', {}],
    ['/pets/abc', {}],
    ['/pets', post('{', 'application/json')],
    ['/pets', post('x', 'text/plain')],
  ] as const) {
    const res = await fetch(baseUrl + url, init)
    t.equal(res.status, 401, `${init.body ?? url} without a key → 401, not 400 or 415`)
    await res.body?.cancel()
  }
})

t.test('the default key is accepted when no key is configured', async (t) => {
  const { baseUrl, config } = await startTestSandbox(t, { API_KEYS: '' })
  t.equal(config.defaultApiKey, true)
  const res = await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer sandbox-api-key' } })
  t.equal(res.status, 200)
  const other = await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${API_KEY}` } })
  t.equal(other.status, 401, 'and only it')
})

t.test('the key comparison: equal strings only, whatever their lengths and contents', async (t) => {
  const { constantTimeEqual } = await import('../../src/pipeline/auth.js')
  const key = 'sandbox-api-key'
  t.ok(constantTimeEqual(key, `${key}`), 'the key itself')
  const wrong = [
    '',
    's',
    key.slice(0, -1),
    `${key}x`,
    key + key,
    ...[...key].map((_, i) => key.slice(0, i) + String.fromCharCode(key.charCodeAt(i) ^ 1) + key.slice(i + 1)),
  ]
  for (const presented of wrong) t.notOk(constantTimeEqual(key, presented), `refuses ${JSON.stringify(presented)}`)
  t.notOk(constantTimeEqual('aaa', 'a'), 'a shorter token that repeats into the key')
  t.notOk(constantTimeEqual('', 'a'), 'an empty key accepts nothing else')
  t.ok(constantTimeEqual('', ''), 'an empty key equals only the empty token')
})
