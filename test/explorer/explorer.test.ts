// Explore by hand: GET /, the spec for tools, and the /docs API explorer, checked over HTTP and
// then in a real browser (Debian's chromium through playwright-core, kept off the network).
import t from 'tap'
import { parse as parseYaml } from 'yaml'
import fixtures from '../../fixtures/pets.json' with { type: 'json' }
import { DEFAULT_API_KEY } from '../../src/config.js'
import { readSpecDocument } from '../../src/contract/load.js'
import { openOfflinePage, trustMissing } from '../../scripts/lib/browser.js'
import { rawExchange } from '../../scripts/lib/raw-http.js'
import { API_KEY, startTestSandbox, waitFor } from '../support/sandbox.js'
import { skipWithoutBrowser } from '../support/system-programs.js'

const DEFAULT_KEY_IN_FORCE = { API_KEYS: '' }

t.test('GET / says what this is, links the rest, and shows the settings in force', async (t) => {
  const { origin } = await startTestSandbox(t, { SEED: '7', SEED_COUNT: '12', CORS_ORIGINS: 'http://app.test:3000' })
  const json = await fetch(`${origin}/`, { headers: { accept: 'application/json' } })
  t.equal(json.status, 200, 'no key needed')
  t.match(json.headers.get('content-type'), /^application\/json/)
  const about = (await json.json()) as Record<string, any>
  t.match(about, {
    name: 'Animal Store sandbox',
    links: {
      docs: '/docs',
      openapiJson: '/v1/openapi.json',
      openapiYaml: '/v1/openapi.yaml',
      health: '/healthz',
      api: `${origin}/v1`,
    },
    settings: {
      dataSource: 'seed',
      seed: 7,
      count: 12,
      data: '12 pets generated from seed 7',
      apiKey: 'configured (not shown)',
      corsOrigins: ['http://app.test:3000'],
    },
  })
  t.notMatch(JSON.stringify(about), API_KEY, 'a configured key is a secret: never shown')

  const html = await fetch(`${origin}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*' } })
  t.match(html.headers.get('content-type'), /^text\/html/, 'a browser gets a page')
  t.match(html.headers.get('vary'), /Accept/)
  const page = await html.text()
  for (const link of ['href="/docs"', 'href="/v1/openapi.json"', 'href="/healthz"'])
    t.match(page, link, `the page links ${link}`)
  t.match(page, /seed[\s\S]*7/, 'and shows the seed')
  t.notMatch(page, API_KEY, 'and never the configured key')
  t.match(page, /Bearer (&#60;|&lt;)your API key(&#62;|&gt;)/, 'its curl line has a placeholder instead')

  const plain = await (await fetch(`${origin}/`)).text()
  t.match(plain, '<!doctype html>', 'no Accept header: the page')
})

t.test('the spec for tools, with this sandbox first among the servers', async (t) => {
  const { origin, baseUrl } = await startTestSandbox(t)
  const source = readSpecDocument()
  const res = await fetch(`${baseUrl}/openapi.json`)
  t.equal(res.status, 200, 'GET /v1/openapi.json needs no key')
  t.match(res.headers.get('content-type'), /^application\/json/)
  const fromJson = (await res.json()) as Record<string, any>
  t.same(
    fromJson['servers'],
    [{ url: baseUrl, description: 'This sandbox' }, ...(source['servers'] as unknown[])],
    'the sandbox, then the real servers',
  )
  t.same({ ...fromJson, servers: source['servers'] }, source, 'otherwise the spec itself')
  t.equal(fromJson['paths']['/store/orders']['get']['x-try-it-disabled'], true)

  const yaml = await fetch(`${baseUrl}/openapi.yaml`)
  t.equal(yaml.status, 200)
  t.match(yaml.headers.get('content-type'), /^application\/yaml/)
  t.same(parseYaml(await yaml.text()), fromJson, 'the YAML says the same')

  // fetch() will not send another Host header: the raw client will.
  const withHost = async (host: string): Promise<Record<string, any>> => {
    const target = `${new URL(baseUrl).pathname}/openapi.json`
    const answer = await rawExchange(Number(new URL(origin).port), { method: 'GET', target, headers: [['Host', host]] })
    return JSON.parse(answer?.body.toString() ?? '{}') as Record<string, any>
  }
  t.equal(
    (await withHost('localhost:32768'))['servers'][0].url,
    'http://localhost:32768/v1',
    'the server URL is the one the client used (port mappings)',
  )
  t.equal((await withHost('x"><b>'))['servers'][0].url, '/v1', 'an unusable Host header gives a relative server URL')
  t.equal((await withHost(new URL(origin).host))['servers'][0].url, baseUrl)
})

t.test('GET /docs and its assets', async (t) => {
  await t.test('with the default key in force, it is filled in, and GET / shows it', async (t) => {
    const { origin } = await startTestSandbox(t, DEFAULT_KEY_IN_FORCE)
    const about = (await (await fetch(`${origin}/`, { headers: { accept: 'application/json' } })).json()) as {
      settings: object
    }
    t.match(about.settings, {
      dataSource: 'fixtures',
      seed: null,
      count: fixtures.length,
      apiKey: `${DEFAULT_API_KEY} (the documented default)`,
    })
    t.match(await (await fetch(`${origin}/`)).text(), `Bearer ${DEFAULT_API_KEY}`)
    const res = await fetch(`${origin}/docs`)
    t.equal(res.status, 200, 'no key needed for the page')
    t.match(res.headers.get('content-type'), /^text\/html/)
    t.match(res.headers.get('content-security-policy'), "connect-src 'self'", 'the page may talk to this sandbox only')
    const page = await res.text()
    t.match(page, `"apiKey":"${DEFAULT_API_KEY}"`)
    t.match(page, 'Thu, 05 Dec 2030', 'the sunset date of getPet')
    t.notMatch(page, /https?:\/\/(?!127\.0\.0\.1)[^"<\s]+\.(js|css)/, 'no script or style from elsewhere')
    for (const asset of ['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/explorer.js']) {
      t.match(page, `"${asset}"`, `the page uses ${asset}`)
      const served = await fetch(origin + asset)
      t.equal(served.status, 200, `${asset} is served from this sandbox`)
      t.ok(Number(served.headers.get('content-length')) > 100, `${asset} has content`)
      await served.arrayBuffer()
    }
  })

  await t.test('with configured keys, no key appears anywhere; nothing else of the bundle is served', async (t) => {
    const { origin } = await startTestSandbox(t)
    const page = await (await fetch(`${origin}/docs`)).text()
    t.match(page, '"apiKey":null')
    t.notMatch(page, API_KEY)
    t.notMatch(page, DEFAULT_API_KEY, 'nor the default one, which is not in force')
    t.notMatch(await (await fetch(`${origin}/docs/explorer.js`)).text(), API_KEY)
    for (const path of ['/docs/package.json', '/docs/..%2Fpackage.json', '/docs/swagger-initializer.js']) {
      const res = await fetch(origin + path)
      t.equal(res.status, 404, `${path} → 404`)
      t.match(await res.json(), { code: 'not_found', status: 404 })
    }
  })
})

t.test(
  'the explorer in a real browser, over HTTPS trusting the CA the sandbox made',
  { skip: skipWithoutBrowser(t, trustMissing()) },
  async (t) => {
    const { origin, tlsCa } = await startTestSandbox(t, { ...DEFAULT_KEY_IN_FORCE, TLS: 'auto' })
    const browser = await openOfflinePage(undefined, tlsCa)
    t.teardown(() => browser.close())
    const { page } = browser

    // An untrusted certificate fails the navigation (net::ERR_CERT_AUTHORITY_INVALID) and this with it.
    const opened = await page.goto(`${origin}/docs`)
    t.equal((await opened?.securityDetails())?.issuer, 'Animal Store sandbox CA', 'served with the CA it made')
    for (const id of ['listPets', 'createPet', 'getPet', 'listOrders']) {
      await page.locator(`[id^="operations-"][id$="-${id}"]`).waitFor({ timeout: 30_000 })
    }
    const listed = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((b) => b.id))
    t.same(
      listed,
      [
        'operations-pets-listPets',
        'operations-pets-createPet',
        'operations-pets-getPet',
        'operations-store-listOrders',
      ],
      'the three operations and GET /store/orders are listed',
    )

    const getPet = page.locator('#operations-pets-getPet')
    t.match(await getPet.getAttribute('class'), /opblock-deprecated/, 'getPet is shown as deprecated')
    await getPet.locator('.opblock-summary-control').click()
    // The click expands the block over several frames (the description's Markdown comes last):
    // wait, bounded, for the date to show; the assertion below fails if it never does.
    await getPet
      .getByText('5 December 2030', { exact: false })
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined)
    t.match(await getPet.innerText(), /Deprecated[\s\S]*5 December 2030/, 'with its removal date')
    t.match(
      await page.locator('header').innerText(),
      /Deprecated:[\s\S]*Thu, 05 Dec 2030/,
      'and the sunset is stated above the reference',
    )

    const orders = page.locator('#operations-store-listOrders')
    await orders.locator('.opblock-summary-control').click()
    // Swagger UI renders the block over several frames and may draw a try-out button that the page's
    // plugin then takes away: wait, bounded, for the block in full (its responses shown) with no
    // button left. A button that stays fails the wait.
    const tryOut = orders.locator('.try-out__btn, button.execute')
    await waitFor(
      async () => (await orders.locator('.responses-wrapper').isVisible()) && (await tryOut.count()) === 0,
      {
        what: 'GET /store/orders to be shown in full without a try-out button',
      },
    )
    t.equal(await tryOut.count(), 0, 'GET /store/orders cannot be tried')

    const listPets = page.locator('#operations-pets-listPets')
    await listPets.locator('.opblock-summary-control').click()
    const call = page.waitForRequest((request) => new URL(request.url()).pathname === '/v1/pets')
    await listPets.locator('button.execute').click()
    const sent = await call
    t.equal(sent.headers()['authorization'], `Bearer ${DEFAULT_API_KEY}`, 'try-it sends the pre-filled default key')
    t.equal(new URL(sent.url()).origin, origin, 'to this sandbox, over HTTPS')
    const body = listPets.locator('.live-responses-table .response-col_description pre').first()
    await body.waitFor({ timeout: 15_000 })
    const shown = await body.innerText()
    for (const pet of fixtures.slice(0, 3))
      t.match(shown, `"name": "${pet.name}"`, `the seeded pet ${pet.name} is displayed`)
    t.equal(
      (await listPets.locator('.live-responses-table tbody .response-col_status').first().innerText()).trim(),
      '200',
    )

    t.same(browser.errors, [], 'no console errors')
    t.same(browser.offsite, [], 'no request left 127.0.0.1')
  },
)
