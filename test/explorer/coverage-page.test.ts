// GET /docs/coverage: the coverage report as a page, operations × documented responses, each cell
// exercised or not, from the same journal as GET /__admin/coverage.
import t from 'tap'
import { ADMIN_AUTH, startControlSandbox } from '../support/control.js'

t.test('the coverage page: operations down, responses across, exercised or not', async (t) => {
  const { api, origin } = await startControlSandbox(t)
  await api('POST', '/pets', { name: 'Rex', categoryId: 3 })
  await api('POST', '/pets', { name: 'Rex', categoryId: '3' })
  await api('GET', '/pets/1', undefined, { 'x-sandbox-namespace': 'team-a' })

  const res = await fetch(`${origin}/docs/coverage`)
  t.equal(res.status, 200, 'no token needed, as for /docs')
  t.match(res.headers.get('content-type'), /^text\/html/)
  t.equal(res.headers.get('cache-control'), 'no-store', 'always the journal of now')
  const page = await res.text()
  t.match(page, '<h1>Coverage: every namespace</h1>')
  t.match(
    page,
    '<strong>3 of 9 reachable documented responses exercised (and 0 of 2 only malformed HTTP or JSON causes)</strong>, over 3 calls',
  )
  t.match(
    page,
    '<thead><tr><th>operation</th><th>calls</th><th>200</th><th>201</th><th>400 invalid_body</th><th>400 malformed_json</th><th>400 bad_request</th><th>401</th><th>404</th><th>default</th><th>other answers</th></tr></thead>',
  )
  t.match(
    page,
    '<tr><th scope="row"><code>createPet</code> POST /v1/pets</th><td>2</td><td class="none"></td><td class="yes" title="exercised">✔ 1</td><td class="yes" title="exercised">✔ 1</td><td class="none" title="never exercised; caused only by malformed HTTP or JSON">–</td><td class="none" title="never exercised; caused only by malformed HTTP or JSON">–</td><td class="no" title="never exercised">✘</td><td class="none"></td><td class="none"></td><td></td></tr>',
  )
  t.match(
    page,
    '<code>getPet</code> GET /v1/pets/{petId}: 1 calls; removed on <strong>2030-12-05</strong>; use <code>/v1/pets</code> instead',
  )

  const one = await (await fetch(`${origin}/docs/coverage?namespace=team-a`, { headers: ADMIN_AUTH })).text()
  t.match(one, '<h1>Coverage: namespace team-a</h1>')
  t.match(one, 'over 1 calls')
  const unknown = await fetch(`${origin}/docs/coverage?namespace=nobody`, { headers: ADMIN_AUTH })
  t.equal(unknown.status, 404)
  t.match(await unknown.json(), { code: 'not_found', status: 404 })
})

t.test('without the admin token the page names no namespace', async (t) => {
  const { api, origin } = await startControlSandbox(t)
  await api('GET', '/pets', undefined, { 'x-sandbox-namespace': 'team-a' })
  await api('GET', '/pets', undefined, { 'x-sandbox-namespace': 'team-b/staging' })

  const anonymous = await fetch(`${origin}/docs/coverage`)
  t.equal(anonymous.status, 200)
  const page = await anonymous.text()
  t.match(page, '<h1>Coverage: every namespace</h1>')
  t.match(page, 'over 2 calls (0 unmatched, 1 invalid)', 'every namespace counted')
  t.match(page, '<code>listPets</code> GET /v1/pets → 400 invalid_parameter</li>', 'the code, not the message')
  t.notMatch(page, /team-/, 'no namespace name, not even the one a refused header quoted')

  for (const headers of [{}, { authorization: 'Bearer sandbox-admin-token' }] as Array<Record<string, string>>) {
    const named = await fetch(`${origin}/docs/coverage?namespace=team-a`, { headers })
    t.equal(named.status, 401, 'naming a namespace needs the token')
    t.match(named.headers.get('www-authenticate'), /^Bearer realm="animal-store-admin"/)
    t.match(await named.json(), { code: 'unauthorized', status: 401 })
  }
  t.equal((await fetch(`${origin}/docs/coverage?namespace=nobody`)).status, 401, 'which names exist, too')

  const trusted = await (await fetch(`${origin}/docs/coverage`, { headers: ADMIN_AUTH })).text()
  t.match(trusted, 'X-Sandbox-Namespace must be', 'with the token, the messages')
  t.match(trusted, 'team-b/staging')
})

t.test('no coverage or journal page while the control API is off', async (t) => {
  const { origin } = await startControlSandbox(t, { ADMIN: 'off' })
  for (const path of ['/docs/coverage', '/docs/journal', '/docs/journal.js']) {
    const res = await fetch(origin + path)
    t.equal(res.status, 404, `${path} → 404`)
    t.match(await res.json(), { code: 'not_found' })
  }
})
