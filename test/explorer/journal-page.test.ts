// GET /docs/journal: the latest requests of a namespace, followed live in a real browser (Debian's
// chromium through playwright-core, kept off the network), and the page's guard over plain HTTP.
import t from 'tap'
import { browserMissing, openOfflinePage } from '../../scripts/lib/browser.js'
import { rawExchange } from '../../scripts/lib/raw-http.js'
import { ADMIN_TOKEN, startControlSandbox } from '../support/control.js'
import { waitFor } from '../support/sandbox.js'
import { skipWithoutBrowser } from '../support/system-programs.js'

/** The status of a GET with a Host header of our choosing (fetch() will not send one). */
async function statusWithHost(origin: string, host: string): Promise<number | undefined> {
  const request = { method: 'GET', target: '/docs/journal', headers: [['Host', host]] as const }
  return (await rawExchange(Number(new URL(origin).port), request))?.status
}

// What it reads, the control API's GET /requests, needs the admin token: control-api.test.ts.
t.test('the page holds no data, and answers the names of this sandbox only', async (t) => {
  const { origin, api } = await startControlSandbox(t)
  await api('GET', '/pets', undefined, { 'x-sandbox-namespace': 'team-a' })

  const res = await fetch(`${origin}/docs/journal?namespace=team-a`)
  t.equal(res.status, 200, 'the page itself needs no token')
  t.match(res.headers.get('content-security-policy'), "script-src 'self'", 'its script is a file of this sandbox')
  const page = await res.text()
  t.notMatch(page, 'team-a', 'it names no namespace: its script reads the name from the address')
  t.notMatch(page, ADMIN_TOKEN)
  t.notMatch(page, /<script>/, 'no inline script')
  t.match(page, '<script src="/docs/journal.js"></script>')

  t.equal(await statusWithHost(origin, 'attacker.example'), 421, 'a foreign Host: 421')
  t.equal(await statusWithHost(origin, new URL(origin).host), 200)
  const cors = await fetch(`${origin}/docs/journal`, { headers: { origin: 'http://elsewhere.test' } })
  t.equal(cors.headers.get('access-control-allow-origin'), null, 'no CORS for other origins')
  await cors.arrayBuffer()
})

const skip = skipWithoutBrowser(t, browserMissing())

t.test('the journal page in a real browser follows one namespace live', { skip }, async (t) => {
  const { origin, api, control } = await startControlSandbox(t)
  const browser = await openOfflinePage()
  t.teardown(() => browser.close())
  const { page } = browser
  const teamA = { 'x-sandbox-namespace': 'team-a' }

  await page.goto(`${origin}/docs/journal?namespace=team-a`)
  await page.locator('#token').fill(ADMIN_TOKEN)
  await page.locator('#token-form button').click()
  const state = page.locator('#state')
  await waitFor(async () => /No requests yet/.test(await state.innerText()), {
    what: 'the page to wait for the first request of a namespace not made yet',
  })

  t.equal((await api('GET', '/pets', undefined, teamA)).status, 200)
  t.equal((await api('GET', '/pets', undefined, { 'x-sandbox-namespace': 'team-b' })).status, 200)
  t.equal(
    (await api('POST', '/pets', { name: 'Elsewhere', categoryId: 3 }, { 'x-sandbox-namespace': 'team-b' })).status,
    201,
  )
  t.equal(
    (await control('POST', '/faults?namespace=team-a', { operationId: 'listPets', status: 503, times: 1 })).status,
    201,
  )
  t.equal((await api('GET', '/pets?limit=2', undefined, teamA)).status, 503)
  t.equal((await api('GET', '/pets/1', undefined, teamA)).status, 200)

  const rows = page.locator('#rows tr')
  await waitFor(async () => (await rows.count()) === 3, { what: "team-a's three requests to appear without a reload" })
  const shown = await rows.evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)),
  )
  t.same(
    shown,
    [
      ['GET', '/v1/pets/1', '200', 'getPet', 'deprecated'],
      ['GET', '/v1/pets', '503', 'listPets', shown[1]?.[4]],
      ['GET', '/v1/pets', '200', 'listPets', ''],
    ],
    "team-a's requests, newest first, and none of team-b's",
  )
  t.match(shown[1]?.[4], /^fault: /, 'the faulted call is marked')
  t.match(await rows.first().getAttribute('class'), /deprecated/)
  t.match(await rows.nth(1).getAttribute('class'), /fault/)
  t.match(await page.locator('#scope').innerText(), 'namespace team-a')

  // One trace among them: the same tab (the token kept) on the trace's address.
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
  const traceparent = `00-${traceId}-00f067aa0ba902b7-01`
  t.equal((await api('GET', '/pets/2', undefined, { ...teamA, traceparent })).status, 200)
  await page.goto(`${origin}/docs/journal?namespace=team-a&traceId=${traceId}`)
  await waitFor(async () => (await rows.count()) === 1, { what: 'the one request of the trace to be shown' })
  t.match(await rows.first().innerText(), /GET\s+\/v1\/pets\/2\s+200\s+getPet/, 'only the request of the trace')
  t.match(await page.locator('#scope').innerText(), `trace ${traceId}`)

  // Chromium logs each 404 read of the namespace not made yet as a failed load: expected, no other error.
  const waiting = /status of 404/
  const errors = browser.errors.filter((error) => !waiting.test(error))
  t.same(errors, [], 'no console errors')
  t.same(browser.offsite, [], 'no request left 127.0.0.1')
})
