// API keys and the admin token are secrets: with every log line switched on, the CLI's output
// (banner, request logs, stop), the error bodies it answers and the journal of the control API
// never carry a configured key or token, nor a wrong one a client sent.
import t from 'tap'
import { join } from 'node:path'
import { spawnCli, startTestSandbox, tempDir } from '../support/sandbox.js'
import { rawExchange } from '../../scripts/lib/raw-http.js'

const [KEY, OTHER_KEY] = ['Sekrit-key-AAAA1111', 'Other-sekrit-BBBB2222'] as const
const ADMIN_TOKEN = 'Admin-sekrit-DDDD4444'
// One character off the configured ones.
const [WRONG_KEY, WRONG_TOKEN] = ['Sekrit-key-AAAA1112', 'Admin-sekrit-DDDD4445'] as const

t.test('keys and the admin token never appear in logs, the banner, error messages or the journal', async (t) => {
  const dir = await tempDir(t)
  const cli = await spawnCli(t, {
    API_KEYS: `${KEY},${OTHER_KEY}`,
    ADMIN_TOKEN,
    DATA_FILE: join(dir, 'db.json'),
    LOG_LEVEL: 'trace',
  })
  const port = Number(new URL(cli.baseUrl).port)
  const bodies: string[] = []
  const post = (body: unknown): RequestInit => ({
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  // What each request sends, and the answer it must get.
  const requests: Array<[path: string, authorization: string, init: RequestInit, status: number]> = [
    ['/pets', `Bearer ${KEY}`, {}, 200],
    ['/pets/abc', `Bearer ${KEY}`, {}, 400],
    ['/pets', `Bearer ${KEY}`, post('{"name":'), 400],
    ['/pets', `Basic ${KEY}`, {}, 401],
    ['/pets', `Bearer ${KEY} extra`, {}, 401],
    ['/pets', `Bearer ${WRONG_KEY}`, {}, 401],
    // The secrets also travel where a client might put them by mistake: in a body, a query, a path.
    [`/pets?status=${KEY}`, `Bearer ${KEY}`, {}, 400],
    [
      '/pets',
      `Bearer ${OTHER_KEY}`,
      post({ name: 'Tokened', categoryId: 2, apiKey: OTHER_KEY, token: ADMIN_TOKEN }),
      201,
    ],
    // The control API: a wrong token, an API key in its place, the right one.
    ['/__admin/requests', `Bearer ${WRONG_TOKEN}`, {}, 401],
    ['/__admin/requests', `Bearer ${KEY}`, {}, 401],
    ['/__admin/faults', `Bearer ${ADMIN_TOKEN}`, post({ operationId: ADMIN_TOKEN }), 400],
  ]
  for (const [path, authorization, init, status] of requests) {
    const url = path.startsWith('/__admin') ? cli.baseUrl.replace(/\/v1$/, '') + path : cli.baseUrl + path
    const res = await fetch(url, { ...init, headers: { authorization, 'content-type': 'application/json' } })
    bodies.push(await res.text())
    t.equal(res.status, status, `${init.method ?? 'GET'} ${path.split('?')[0]}: ${status}`)
  }
  // Straight onto the socket: headers too large, answered before any of them is read.
  const headers = [
    ['Authorization', `Bearer ${KEY}`],
    ['X-Pad', 'a'.repeat(20_000)],
  ] as const
  const answer = await rawExchange(port, { method: 'GET', target: '/v1/pets', headers })
  t.equal(answer?.status, 431)
  bodies.push(answer?.body.toString() ?? '')

  const journal = await fetch(cli.baseUrl.replace(/\/v1$/, '/__admin') + '/requests', {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  const recorded = await journal.text()
  t.equal(journal.status, 200)
  t.ok((JSON.parse(recorded) as { count: number }).count >= 8, 'the journal recorded the requests')
  t.match(recorded, /"name":"Tokened"/, 'with their bodies')
  bodies.push(recorded)

  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
  t.ok(cli.stdout.includes('"msg":"request"'), 'request logs were written')
  const output = cli.stdout + cli.stderr
  for (const secret of [KEY, OTHER_KEY, WRONG_KEY, ADMIN_TOKEN, WRONG_TOKEN]) {
    t.notOk(output.includes(secret), `${secret.slice(0, 6)}… is not in stdout or stderr`)
    t.notOk(
      bodies.some((body) => body.includes(secret)),
      `${secret.slice(0, 6)}… is in no answer and not in the journal`,
    )
  }
  t.match(cli.stderr, /Authorization: Bearer <your API key>/, 'the banner shows a placeholder for the key')
  t.match(cli.stderr, /Bearer <your admin token>/, 'and for the admin token')
})

// A key may hold / + ~ =, which a URL percent-encodes, and a client may carry it as base64: alone,
// base64url, or in Basic credentials after a user name of any length (each shifts its alignment).
const ENCODED_KEY = 'Sekrit/key+AAAA~1111=='
const base64 = (text: string): string => Buffer.from(text).toString('base64')

t.test('a key percent-encoded or as base64 is cut from the journal and the logs', async (t) => {
  const { origin, baseUrl, logs } = await startTestSandbox(t, {
    API_KEYS: ENCODED_KEY,
    ADMIN_TOKEN,
    LOG_LEVEL: 'trace',
  })
  const forms = [
    encodeURIComponent(ENCODED_KEY),
    encodeURIComponent(ENCODED_KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams({ k: ENCODED_KEY }).toString().slice(2),
    base64(ENCODED_KEY),
    Buffer.from(ENCODED_KEY).toString('base64url'),
    ...['u', 'us', 'use'].map((user) => base64(`${user}:${ENCODED_KEY}`)),
  ]
  const headers = { authorization: `Bearer ${ENCODED_KEY}`, 'content-type': 'application/json' }
  const query = await fetch(`${baseUrl}/pets?status=${forms[0]}&tag=${forms[2]}`, { headers })
  t.equal(query.status, 400, 'the percent-encoded key in a query is refused, and journaled')
  const body = { name: 'Encoded', categoryId: 2, tags: forms.map((form, i) => ({ id: i, name: `Basic ${form}` })) }
  const posted = await fetch(`${baseUrl}/pets`, { method: 'POST', headers, body: JSON.stringify(body) })
  t.ok(posted.status === 201 || posted.status === 400, `the body is answered (${posted.status})`)
  const journal = await fetch(`${origin}/__admin/requests`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  t.equal(journal.status, 200)
  const recorded = await journal.text()
  t.match(recorded, /"name":"Encoded"/, 'the journal recorded the body')
  t.match(recorded, /Basic [A-Za-z0-9+/]{0,3}\[REDACTED\]/, 'with each base64 form shown cut')
  const shown = `${recorded}${JSON.stringify(logs)}`
  for (const form of [ENCODED_KEY, ...forms]) t.notOk(shown.includes(form), `${form.slice(0, 12)}… is not shown`)
})
