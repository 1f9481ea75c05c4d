// API keys and the admin token are secrets: with every log line switched on, the CLI's output
// (banner, request logs, stop), the error bodies it answers and the journal of the control API
// never carry a configured key or token, nor a wrong one a client sent.
import t from 'tap'
import { join } from 'node:path'
import { spawnCli, tempDir } from '../support/sandbox.js'
import { rawExchange } from '../../scripts/lib/raw-http.js'

const KEYS = ['Sekrit-key-AAAA1111', 'Other-sekrit-BBBB2222']
const WRONG = ['Sekrit-key-AAAA1112', 'Wrong-sekrit-CCCC3333', 'Admin-sekrit-DDDD4445']
const ADMIN_TOKEN = 'Admin-sekrit-DDDD4444'

t.test('keys and the admin token never appear in logs, the banner, error messages or the journal', async (t) => {
  const dir = await tempDir(t)
  const cli = await spawnCli(t, {
    API_KEYS: KEYS.join(','),
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
    ...KEYS.flatMap((key): Array<[string, string, RequestInit, number]> => [
      ['/pets', `Bearer ${key}`, {}, 200],
      ['/pets', `Bearer ${key}`, post({ name: 'Kept', categoryId: 1 }), 201],
      ['/pets/abc', `Bearer ${key}`, {}, 400],
      ['/pets', `Bearer ${key}`, post('{"name":'), 400],
      ['/pets', `Basic ${key}`, {}, 401],
      ['/pets', `Bearer ${key} extra`, {}, 401],
    ]),
    ...WRONG.flatMap((key): Array<[string, string, RequestInit, number]> => [
      ['/pets', `Bearer ${key}`, {}, 401],
      ['/pets', `Bearer ${key}`, post('{}'), 401],
    ]),
    // The secrets also travel where a client might put them by mistake: in a body, a query, a path.
    [`/pets?status=${KEYS[0]}`, `Bearer ${KEYS[0]}`, {}, 400],
    ['/pets', `Bearer ${KEYS[1]}`, post({ name: 'Tokened', categoryId: 2, apiKey: KEYS[1], token: ADMIN_TOKEN }), 201],
    // The control API: the right token, a wrong one, an API key in its place.
    ['/__admin/requests', `Bearer ${WRONG[2]}`, {}, 401],
    ['/__admin/requests', `Bearer ${KEYS[0]}`, {}, 401],
    ['/__admin/faults', `Bearer ${ADMIN_TOKEN}`, post({ operationId: ADMIN_TOKEN }), 400],
  ]
  for (const [path, authorization, init, status] of requests) {
    const url = path.startsWith('/__admin') ? cli.baseUrl.replace(/\/v1$/, '') + path : cli.baseUrl + path
    const res = await fetch(url, { ...init, headers: { authorization, 'content-type': 'application/json' } })
    bodies.push(await res.text())
    t.equal(res.status, status, `${init.method ?? 'GET'} ${path.split('?')[0]}: ${status}`)
  }
  // Straight onto the socket: an oversized header and a header that is not valid HTTP.
  for (const [extra, status] of [
    [['X-Pad', 'a'.repeat(20_000)], 431],
    [['Bad Header', 'x'], 400],
  ] as const) {
    const headers = [['Authorization', `Bearer ${KEYS[0]}`], extra] as const
    const answer = await rawExchange(port, { method: 'GET', target: '/v1/pets', headers })
    t.equal(answer?.status, status, `${extra[0]}: ${status}`)
    bodies.push(answer?.body.toString() ?? '')
  }

  const journal = await fetch(cli.baseUrl.replace(/\/v1$/, '/__admin') + '/requests', {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  const recorded = await journal.text()
  t.equal(journal.status, 200)
  t.ok((JSON.parse(recorded) as { count: number }).count >= 20, 'the journal recorded the requests')
  t.match(recorded, /"name":"Tokened"/, 'with their bodies')
  bodies.push(recorded)

  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
  t.ok(cli.stdout.includes('"msg":"request"'), 'request logs were written')
  const output = cli.stdout + cli.stderr
  for (const secret of [...KEYS, ...WRONG, ADMIN_TOKEN]) {
    t.notOk(output.includes(secret), `${secret.slice(0, 6)}… is not in stdout or stderr`)
    t.notOk(
      bodies.some((body) => body.includes(secret)),
      `${secret.slice(0, 6)}… is in no answer and not in the journal`,
    )
  }
  t.match(cli.stderr, /Authorization: Bearer <your API key>/, 'the banner shows a placeholder for the key')
  t.match(cli.stderr, /Bearer <your admin token>/, 'and for the admin token')
})
