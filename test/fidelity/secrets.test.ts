// An upstream that echoes the key it was sent (in WWW-Authenticate, a header of its own, its body)
// gets it shown nowhere: not in the drift over HTTP or MCP, not in record mode's answers, sessions
// or replays, not in the logs. The sandbox's own keys and admin token are cut the same way, and
// never sent up.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { AUTH, JSON_HEADERS, runCliToEnd, startTestSandbox, tempDir } from '../support/sandbox.js'
import { standInFor } from './stand-in.js'

// With / + ~ =, which a URL percent-encodes.
const UPSTREAM_KEY = 'upstream/secret+key~e40b=='
// The echo's encoded forms (stand-in.ts): percent-encoded, base64, Basic credentials.
const ENCODED = [
  encodeURIComponent(UPSTREAM_KEY),
  Buffer.from(UPSTREAM_KEY).toString('base64'),
  Buffer.from(`user:${UPSTREAM_KEY}`).toString('base64'),
]
const shows = (text: string): boolean => [UPSTREAM_KEY, ...ENCODED].some((form) => text.includes(form))
const ADMIN_TOKEN = 'secrets-admin-token-19af'
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` }
const REDACTED = '[REDACTED]'

t.test('compare: the echoed key is in neither GET /__admin/drift nor getDrift over MCP, nor the logs', async (t) => {
  const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
  standIn.switches = { echoToken: true }
  const { origin, baseUrl, logs } = await startTestSandbox(t, {
    ADMIN_TOKEN,
    LOG_LEVEL: 'debug',
    ...upstream,
  })
  // A pet named after the admin token, made in the sandbox alone (a POST is not sent up): the
  // sandbox's side of the drift shows it cut too.
  const created = await fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ name: ADMIN_TOKEN, categoryId: 1 }),
  })
  t.equal(created.status, 201)
  t.equal((await fetch(`${baseUrl}/pets?limit=100`, { headers: AUTH })).status, 200)

  const drift = await (await fetch(`${origin}/__admin/drift`, { headers: ADMIN })).text()
  t.equal(standIn.authorizations.at(-1), `Bearer ${UPSTREAM_KEY}`, 'the upstream got its key, and echoed it')
  t.match(JSON.parse(drift), { compared: 1, differences: [{ pointer: '/status', upstream: 401 }] })
  t.notOk(shows(drift), 'the key is not in the drift, in any form')
  t.notOk(drift.includes(ADMIN_TOKEN), 'nor is the admin token, the sandbox’s pet’s name')
  t.match(drift, `"name":"${REDACTED}"`, 'which is shown cut')
  t.ok(drift.includes(`token ${REDACTED} is revoked`), 'where it was echoed, the drift says it was cut')

  const client = new Client({ name: 'animal-store-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', origin), { requestInit: { headers: ADMIN } }))
  t.teardown(() => client.close())
  const result = JSON.stringify(await client.callTool({ name: 'getDrift', arguments: {} }))
  t.match(result, /invalid_token/, 'getDrift shows the upstream’s WWW-Authenticate')
  t.notOk(shows(result) || result.includes(ADMIN_TOKEN), 'no secret in getDrift’s result')
  t.ok(logs.length > 0, 'the logs were read')
  t.notOk(shows(JSON.stringify(logs)), 'the key is not in the logs')
})

t.test(
  'record: the echo reaches no client, session or replay; a sandbox secret in a query does not go up',
  async (t) => {
    const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
    const sessions = await tempDir(t)
    const { origin, baseUrl, logs } = await startTestSandbox(t, {
      ADMIN_TOKEN,
      LOG_LEVEL: 'debug',
      ...upstream,
      UPSTREAM_MODE: 'record',
      SESSION_DIR: sessions,
    })
    standIn.switches = { echoToken: true }
    const echoed = await fetch(`${baseUrl}/pets`, { headers: AUTH })
    t.equal(echoed.status, 401, 'the upstream’s answer is relayed')
    const headers = JSON.stringify([...echoed.headers])
    const body = await echoed.text()
    t.equal(standIn.authorizations.at(-1), `Bearer ${UPSTREAM_KEY}`, 'the upstream got its key, and echoed it')
    t.equal(echoed.headers.get('x-rejected-token'), REDACTED, 'a header of the upstream’s own is cut')
    t.match(echoed.headers.get('www-authenticate'), `token ${REDACTED} is revoked`, 'WWW-Authenticate is cut')
    t.match(JSON.parse(body), { token: REDACTED, message: `token ${REDACTED} is revoked` }, 'the body is cut')
    t.match(
      JSON.parse(body),
      { base64: /^\[REDACTED\]/, basic: /^Basic [\w+/]*\[REDACTED\][\w+/]*=*$/ },
      'and its base64 forms',
    )
    t.equal(echoed.headers.get('location'), `/login?token=${REDACTED}`, 'as is Location, percent-encoded')
    t.notOk(shows(`${headers}${body}`), 'the key is nowhere in the answer, in any form')

    const sent = standIn.received.length
    const carrying = await fetch(`${baseUrl}/pets?token=${ADMIN_TOKEN}`, { headers: AUTH })
    t.equal(carrying.status, 400, 'a request carrying the admin token in its query is refused')
    t.match(await carrying.json(), { code: 'bad_request', message: /not sent to the upstream/ })
    t.equal(standIn.received.length, sent, 'and not sent upstream')

    const session = await readFile(join(sessions, 'default.session.jsonl'), 'utf8')
    t.equal(session.trim().split('\n').length, 2, 'a header and the exchange')
    t.notOk(shows(session), 'the key is not in the session')
    const journal = await (await fetch(`${origin}/__admin/requests`, { headers: ADMIN })).text()
    t.match(journal, '"count":2', 'the journal was read')
    t.notOk(shows(journal), 'the key is not in the journal')

    // Replayed against the same upstream, which echoes the key replay sends it.
    const replayed = await runCliToEnd({}, [
      'replay',
      join(sessions, 'default.session.jsonl'),
      '--against',
      standIn.baseUrl,
      '--api-key',
      UPSTREAM_KEY,
      '--json',
    ])
    t.equal(standIn.authorizations.at(-1), `Bearer ${UPSTREAM_KEY}`, 'replay sent the key')
    t.match(replayed.stdout, /"replayed": 1/, `the session was replayed: ${replayed.stderr}`)
    t.notOk(shows(`${replayed.stdout}${replayed.stderr}`), 'the key is not in the replay’s report')
    t.notOk(shows(JSON.stringify(logs)), 'the key is not in the logs')
  },
)
