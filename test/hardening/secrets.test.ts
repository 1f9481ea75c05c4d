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
  const send = async (path: string, authorization: string | undefined, init: RequestInit = {}): Promise<number> => {
    const res = await fetch(cli.baseUrl + path, {
      ...init,
      headers: { ...(authorization === undefined ? {} : { authorization }), 'content-type': 'application/json' },
    })
    bodies.push(await res.text())
    return res.status
  }

  const statuses: number[] = []
  for (const key of KEYS) {
    statuses.push(await send('/pets', `Bearer ${key}`))
    statuses.push(
      await send('/pets', `Bearer ${key}`, { method: 'POST', body: JSON.stringify({ name: 'Kept', categoryId: 1 }) }),
    )
    statuses.push(await send('/pets/abc', `Bearer ${key}`))
    statuses.push(await send('/pets', `Bearer ${key}`, { method: 'POST', body: '{"name":' }))
    statuses.push(await send('/pets', `Basic ${key}`))
    statuses.push(await send('/pets', `Bearer ${key} extra`))
  }
  for (const key of WRONG) {
    statuses.push(await send('/pets', `Bearer ${key}`))
    statuses.push(await send('/pets', `Bearer ${key}`, { method: 'POST', body: '{}' }))
  }
  // Straight onto the socket: an oversized header and a header that is not valid HTTP.
  for (const extra of [
    ['X-Pad', 'a'.repeat(20_000)],
    ['Bad Header', 'x'],
  ] as const) {
    const answer = await rawExchange(port, {
      method: 'GET',
      target: '/v1/pets',
      headers: [['Authorization', `Bearer ${KEYS[0]}`], extra],
    })
    statuses.push(answer?.status ?? 0)
    bodies.push(answer?.body.toString() ?? '')
  }
  // The secrets also travel where a client might put them by mistake: in a body, a query, a path.
  statuses.push(await send(`/pets?status=${KEYS[0]}`, `Bearer ${KEYS[0]}`))
  statuses.push(
    await send('/pets', `Bearer ${KEYS[1]}`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Tokened', categoryId: 2, apiKey: KEYS[1], token: ADMIN_TOKEN }),
    }),
  )
  // The control API: the right token, a wrong one, an API key in its place.
  const admin = async (path: string, authorization: string, init: RequestInit = {}): Promise<number> => {
    const res = await fetch(cli.baseUrl.replace(/\/v1$/, '/__admin') + path, {
      ...init,
      headers: { authorization, 'content-type': 'application/json' },
    })
    bodies.push(await res.text())
    return res.status
  }
  statuses.push(await admin('/requests', `Bearer ${WRONG[2]}`))
  statuses.push(await admin('/requests', `Bearer ${KEYS[0]}`))
  statuses.push(
    await admin('/faults', `Bearer ${ADMIN_TOKEN}`, {
      method: 'POST',
      body: JSON.stringify({ operationId: ADMIN_TOKEN }),
    }),
  )
  t.same(
    statuses,
    [
      200, 201, 400, 400, 401, 401, 200, 201, 400, 400, 401, 401, 401, 401, 401, 401, 401, 401, 431, 400, 400, 201, 401,
      401, 400,
    ],
    'the requests got their answers',
  )

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
