// An upstream that is down, slow or answers garbage never changes the sandbox's own answer in
// compare mode, and is reported as such.
import t from 'tap'
import { AUTH, freePort, startTestSandbox } from '../support/sandbox.js'
import { standInFor } from './stand-in.js'

const UPSTREAM_KEY = 'upstream-secret-key-55d0'
const ADMIN = { authorization: 'Bearer failing-admin' }
// Far below the slow stand-in's 3 s, and far above what a refused connection or a garbage answer
// takes on a loaded machine (at 300 ms, two busy cores made them time out too).
const TIMEOUT_MS = '1000'

t.test('down, slow, garbage, too large: the sandbox answers as ever, and the drift says so', async (t) => {
  const { standIn } = await standInFor(t, UPSTREAM_KEY)
  const upstreams: [string, string, () => void, Record<string, unknown>][] = [
    ['down', `http://127.0.0.1:${await freePort()}/v1`, () => undefined, { kind: 'upstream-unreachable' }],
    ['slow', standIn.baseUrl, () => (standIn.switches = { delayMs: 3000 }), { kind: 'upstream-timeout' }],
    ['garbage', standIn.baseUrl, () => (standIn.switches = { garbage: true }), { kind: 'unreadable-upstream' }],
    // Past UPSTREAM_MAX_BYTES: its body unread (upstream-size.test.ts measures the memory it spares).
    [
      'too large',
      standIn.baseUrl,
      () => (standIn.switches = { hugeBytes: 1024 * 1024 }),
      { kind: 'unreadable-upstream', pointer: '/body', upstream: /4096 bytes/ },
    ],
  ]
  for (const [name, upstream, arrange, drift] of upstreams) {
    arrange()
    const { origin, baseUrl } = await startTestSandbox(t, {
      ADMIN_TOKEN: 'failing-admin',
      UPSTREAM: upstream,
      UPSTREAM_API_KEY: UPSTREAM_KEY,
      UPSTREAM_TIMEOUT_MS: TIMEOUT_MS,
      UPSTREAM_MAX_BYTES: '4096',
    })
    const answer = await fetch(`${baseUrl}/pets?limit=2`, { headers: AUTH })
    t.equal(answer.status, 200, `${name}: the sandbox answers`)
    t.same(
      ((await answer.json()) as { id: number }[]).map((pet) => pet.id),
      [1, 2],
      `${name}: with its own pets`,
    )
    const report = (await (await fetch(`${origin}/__admin/drift`, { headers: ADMIN })).json()) as {
      compared: number
      differences: { kind: string }[]
    }
    t.equal(report.compared, 1, `${name}: the request counts as compared`)
    const found = report.differences.find((d) => d.kind === drift['kind'])
    t.match(found, { operationId: 'listPets', ...drift }, `${name}: reported as ${String(drift['kind'])}`)
    t.notOk(JSON.stringify(report).includes(UPSTREAM_KEY), `${name}: the key is not in the report`)
  }
})

t.test('where the upstream answers, down and slow are the contract’s Error bodies', async (t) => {
  const { standIn } = await standInFor(t, UPSTREAM_KEY)
  standIn.switches = { delayMs: 3000 }
  const upstreams: [string, string, number, string][] = [
    ['down', `http://127.0.0.1:${await freePort()}/v1`, 502, 'upstream_unreachable'],
    ['slow', standIn.baseUrl, 504, 'upstream_timeout'],
  ]
  for (const [name, upstream, status, code] of upstreams) {
    const { baseUrl } = await startTestSandbox(t, {
      UPSTREAM: upstream,
      UPSTREAM_API_KEY: UPSTREAM_KEY,
      UPSTREAM_MODE: 'passthrough',
      UPSTREAM_TIMEOUT_MS: TIMEOUT_MS,
    })
    const answer = await fetch(`${baseUrl}/store/orders`, { headers: AUTH })
    t.equal(answer.status, status, `${name}: ${status}`)
    const body = (await answer.json()) as { code: string; status: number; message: string }
    t.match(body, { code, status }, `${name}: ${code}`)
    t.ok(body.message.endsWith(`(${upstream})`), `${name}: the message names the upstream`)
  }
})
