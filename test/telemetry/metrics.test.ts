import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format'
import t from 'tap'
import { NAMESPACE_HEADER } from '../../src/namespaces/namespaces.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, startControlSandbox } from '../support/control.js'
import { AUTH, postPet, startTestSandbox, waitFor } from '../support/sandbox.js'

/** Scrapes GET /metrics with the admin token and parses it as Prometheus does. */
async function scrape(origin: string): Promise<MetricFamily[]> {
  const res = await fetch(`${origin}/metrics`, { headers: ADMIN_AUTH })
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`)
  if (res.headers.get('content-type') !== 'text/plain; version=0.0.4; charset=utf-8')
    throw new Error(`GET /metrics is ${res.headers.get('content-type')}`)
  return parsePrometheusTextFormat(await res.text())
}

function family(families: MetricFamily[], name: string): MetricFamily {
  const found = families.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no metric ${name}`)
  return found
}

/** The value of the sample of `name` with exactly these labels (0 when there is none). */
function value(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const sample = family(families, name).metrics.find(
    (m) => JSON.stringify(Object.entries(m.labels ?? {}).sort()) === JSON.stringify(Object.entries(labels).sort()),
  )
  return Number(sample?.value ?? 0)
}

/** Every API request counted so far: requests are counted as their connection's answer closes. */
function requestsCounted(families: MetricFamily[]): number {
  return family(families, 'sandbox_requests_total').metrics.reduce((sum, m) => sum + Number(m.value), 0)
}

const inNamespace = (name: string) => ({ [NAMESPACE_HEADER]: name })

t.test('GET /metrics counts requests by operation, status and namespace, faults, drops and writes', async (t) => {
  const { origin, control, api } = await startControlSandbox(t, { JOURNAL_SIZE: '2' })
  // The write histogram and the process metrics start with the first scrape.
  t.equal(family(await scrape(origin), 'sandbox_store_write_seconds').metrics[0]?.count, '0')
  t.equal((await api('GET', '/pets')).status, 200)
  t.equal((await api('GET', '/pets')).status, 200)
  t.equal((await api('GET', '/no-such-thing')).status, 404)
  t.equal((await api('GET', '/pets', undefined, inNamespace('alpha'))).status, 200)
  t.equal((await api('GET', '/pets/999999', undefined, inNamespace('beta'))).status, 404)
  t.equal((await control('POST', '/faults', { operationId: 'getPet', status: 503, times: 1 })).status, 201)
  t.equal((await api('GET', '/pets/1')).status, 503, 'the fault acts')
  t.equal((await api('GET', '/pets/1')).status, 200, 'once')
  t.equal((await postPet(`${origin}/v1`, undefined, { ...AUTH, ...inNamespace('alpha') })).status, 201)

  let metrics: MetricFamily[] = []
  await waitFor(async () => requestsCounted((metrics = await scrape(origin))) === 8, {
    what: 'the 8 API requests counted',
  })
  const requests = (operation: string, status: string, namespace: string) =>
    value(metrics, 'sandbox_requests_total', { operation, status, namespace })
  t.equal(family(metrics, 'sandbox_requests_total').type, 'COUNTER')
  t.equal(requests('listPets', '200', 'default'), 2)
  t.equal(requests('unmatched', '404', 'default'), 1, 'a path the spec lacks is counted as unmatched')
  t.equal(requests('listPets', '200', 'alpha'), 1)
  t.equal(requests('getPet', '404', 'beta'), 1)
  t.equal(requests('getPet', '503', 'default'), 1)
  t.equal(requests('getPet', '200', 'default'), 1)
  t.equal(requests('createPet', '201', 'alpha'), 1)
  t.equal(value(metrics, 'sandbox_injected_faults_total', { operation: 'getPet' }), 1)
  t.equal(family(metrics, 'sandbox_injected_faults_total').metrics.length, 1, 'only the operation a fault acted on')
  // JOURNAL_SIZE 2: the default namespace's journal kept 2 of its 5 requests.
  t.equal(value(metrics, 'sandbox_journal_dropped_total'), 3)
  const writes = family(metrics, 'sandbox_store_write_seconds')
  t.equal(writes.type, 'HISTOGRAM')
  t.equal(writes.metrics[0]?.count, '1', 'the create: one durable write, timed once it is acknowledged')
  t.equal(writes.metrics[0]?.buckets?.['+Inf'], '1')
  t.ok(family(metrics, 'process_cpu_user_seconds_total'), "prom-client's process metrics")
  t.ok(family(metrics, 'nodejs_eventloop_lag_seconds'))

  t.equal((await control('DELETE', '/requests')).status, 200)
  t.equal(
    value(await scrape(origin), 'sandbox_journal_dropped_total'),
    3,
    'a counter: clearing the journal takes nothing back',
  )
})

t.test('GET /metrics is read with the admin token, and is off with the control API', async (t) => {
  const { origin } = await startControlSandbox(t)
  for (const headers of [{}, AUTH]) {
    const res = await call(`${origin}/metrics`, 'GET', undefined, headers)
    t.equal(res.status, 401, `${JSON.stringify(headers)} → 401`)
    t.match(res.body, { code: 'unauthorized', message: String, status: 401 }, 'the Error body')
    t.match(res.headers.get('www-authenticate'), /^Bearer/)
  }

  const post = await call(`${origin}/metrics`, 'POST', undefined, ADMIN_AUTH)
  t.match(post, { status: 405, body: { code: 'method_not_allowed', status: 405 } })
  t.equal(post.headers.get('allow'), 'GET, HEAD')
  t.match(await call(`${origin}/metrics/more`, 'GET', undefined, ADMIN_AUTH), { status: 404 })

  const off = await startTestSandbox(t, { ADMIN_TOKEN, ADMIN: 'off' })
  const res = await call(`${off.origin}/metrics`, 'GET', undefined, ADMIN_AUTH)
  t.match(res, { status: 404, body: { code: 'not_found' } }, 'no /metrics without the control API')
})

t.test(
  'the namespace label names the default namespace and the first MAX_NAMESPACES others, then "other"',
  async (t) => {
    const { origin, api } = await startControlSandbox(t, { MAX_NAMESPACES: '2' })
    const names = ['n1', 'n2', 'n3', 'n4', 'n3']
    for (const name of names) t.equal((await api('GET', '/pets', undefined, inNamespace(name))).status, 200)
    t.equal((await api('GET', '/pets')).status, 200)
    let metrics: MetricFamily[] = []
    await waitFor(async () => requestsCounted((metrics = await scrape(origin))) === names.length + 1, {
      what: 'the requests counted',
    })
    const labels = family(metrics, 'sandbox_requests_total')
      .metrics.map((m) => `${m.labels?.['namespace']}=${m.value}`)
      .sort()
    t.same(labels, ['default=1', 'n1=1', 'n2=1', 'other=3'])
  },
)
