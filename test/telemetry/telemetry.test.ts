// OpenTelemetry: server spans exported over OTLP/HTTP to a receiver, parented to the caller's
// traceparent, when the OTEL_* variables ask for it; nothing of the SDK loaded when they do not.
import { createServer, type Server } from 'node:http'
import { connect as http2Connect } from 'node:http2'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as semconv from '@opentelemetry/semantic-conventions'
import * as registry from '@opentelemetry/semantic-conventions/incubating'
import t, { type Test } from 'tap'
import { ADMIN_AUTH, ADMIN_TOKEN } from '../support/control.js'
import {
  API_KEY,
  AUTH,
  ROOT,
  buildCli,
  runCliToEnd,
  spawnCli,
  tempDir,
  waitFor,
  type RunningCli,
} from '../support/sandbox.js'

interface Attribute {
  key: string
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
}
interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Attribute[]
}

/** An OTLP/HTTP receiver of JSON trace exports on 127.0.0.1, holding every span it is sent. */
async function otlpReceiver(t: Test): Promise<{ endpoint: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/json')
        return void res.writeHead(404).end()
      const exported = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: ReceivedSpan[] }> }>
      }
      for (const { scopeSpans } of exported.resourceSpans) for (const scope of scopeSpans) spans.push(...scope.spans)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as { port: number }
  return { endpoint: `http://127.0.0.1:${port}/v1/traces`, spans }
}

function attributesOf(span: ReceivedSpan): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(
    span.attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)),
    ]),
  )
}

/** Each attribute's type as OTLP carries it: string, int, bool or double. */
function typesOf(span: ReceivedSpan): Record<string, string> {
  return Object.fromEntries(
    span.attributes.map(({ key, value }) => [key, Object.keys(value)[0]?.replace(/Value$/, '') ?? 'none']),
  )
}

/** Attribute names of the semantic conventions' registry, stable and incubating, and the stable ones. */
const namesOf = (module: Record<string, unknown>): string[] =>
  Object.entries(module).flatMap(([name, value]) =>
    name.startsWith('ATTR_') && typeof value === 'string' ? [value] : [],
  )
const STABLE_NAMES = new Set(namesOf(semconv))
/** The registry's namespaces (http, url, server…): a name in one of them is the conventions' to define. */
const REGISTRY_NAMESPACES = new Set(namesOf(registry).map((name) => name.split('.')[0]))

interface Expected {
  /** The origin the request was sent to, and the HTTP version it was sent with. */
  readonly origin: string
  readonly version: '1.1' | '2'
  readonly route?: string
  readonly query?: string
  readonly status: number
}

/**
 * Checks a server span against the HTTP semantic conventions: every attribute in a namespace of the
 * registry is a stable name of it, and the required and recommended ones are there, typed and valued
 * as defined; the conditional ones only when their condition holds.
 */
function checkConventions(t: Test, span: ReceivedSpan, expect: Expected) {
  const [types, attributes, what] = [typesOf(span), attributesOf(span), span.name]
  for (const name of Object.keys(types)) {
    if (REGISTRY_NAMESPACES.has(name.split('.')[0])) t.ok(STABLE_NAMES.has(name), `${what}: ${name} is a stable name`)
    else t.match(name, /^sandbox\./, `${what}: ${name}, the sandbox's own, outside the registry's namespaces`)
  }
  const { protocol, hostname, port } = new URL(expect.origin)
  // Each attribute's OTLP type and value; false: absent.
  const wanted: Record<string, [string, unknown] | false> = {
    [semconv.ATTR_HTTP_REQUEST_METHOD]: ['string', String],
    [semconv.ATTR_URL_PATH]: ['string', String],
    [semconv.ATTR_URL_SCHEME]: ['string', protocol.replace(':', '')],
    [semconv.ATTR_HTTP_RESPONSE_STATUS_CODE]: ['int', expect.status],
    [semconv.ATTR_SERVER_ADDRESS]: ['string', hostname],
    [semconv.ATTR_SERVER_PORT]: ['int', Number(port)],
    [semconv.ATTR_NETWORK_PROTOCOL_VERSION]: ['string', expect.version],
    [semconv.ATTR_CLIENT_ADDRESS]: ['string', /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/],
    [semconv.ATTR_NETWORK_PEER_ADDRESS]: ['string', String],
    [semconv.ATTR_NETWORK_PEER_PORT]: ['int', Number],
    [semconv.ATTR_USER_AGENT_ORIGINAL]: ['string', String],
    [semconv.ATTR_HTTP_ROUTE]: expect.route !== undefined && ['string', expect.route],
    [semconv.ATTR_URL_QUERY]: expect.query !== undefined && ['string', expect.query],
    [semconv.ATTR_ERROR_TYPE]: expect.status >= 500 && ['string', String(expect.status)],
  }
  for (const [name, want] of Object.entries(wanted)) {
    if (want === false) t.notOk(name in attributes, `${what}: no ${name}`)
    else t.match([types[name], attributes[name]], want, `${what}: ${name}, typed and valued`)
  }
  t.equal(
    span.name,
    [attributes[semconv.ATTR_HTTP_REQUEST_METHOD], expect.route].filter(Boolean).join(' '),
    `named {method} {route}`,
  )
}

/** The CLI with the module log preloaded: which ES modules the start resolved, one URL a line. */
async function startLogged(
  t: Test,
  cli: string,
  env: Record<string, string>,
): Promise<RunningCli & { modules: string }> {
  const modules = join(await tempDir(t), 'modules.log')
  const hook = pathToFileURL(join(ROOT, 'test/support/module-log.mjs')).href
  const run = await spawnCli(
    t,
    {
      ADMIN_TOKEN,
      API_KEYS: API_KEY,
      LOG_LEVEL: 'info',
      DATA_FILE: ':memory:',
      MODULE_LOG: modules,
      NODE_OPTIONS: `--import=${hook}`,
      ...env,
    },
    [],
    cli,
  )
  return Object.assign(run, { modules })
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const traceparent = (parent: string): string => `00-${TRACE_ID}-${parent}-01`
/** The caller's span each call is made from, by the operation it calls. */
const PARENTS: Record<string, string> = {
  getPet: '00f067aa0ba902b7',
  addFault: '00f067aa0ba902b8',
  listPets: '00f067aa0ba902b9',
}

t.test(
  'with an OTLP endpoint set, every API and control API call is a server span in the caller’s trace',
  async (t) => {
    const cli = await buildCli(t)
    const receiver = await otlpReceiver(t)
    const sandbox = await startLogged(t, cli, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    })
    const namespace = { 'x-sandbox-namespace': 'traced' }
    const deprecated = await fetch(`${sandbox.baseUrl}/pets/1`, {
      headers: { ...AUTH, ...namespace, traceparent: traceparent(PARENTS['getPet'] as string) },
    })
    t.equal(deprecated.headers.get('deprecation') !== null, true, 'getPet is deprecated')
    const armed = await fetch(new URL('/__admin/faults?namespace=traced', sandbox.baseUrl), {
      method: 'POST',
      headers: {
        ...ADMIN_AUTH,
        'content-type': 'application/json',
        traceparent: traceparent(PARENTS['addFault'] as string),
      },
      body: JSON.stringify({ operationId: 'listPets', status: 503, times: 1 }),
    })
    t.equal(armed.status, 201)
    const faulted = await fetch(`${sandbox.baseUrl}/pets?limit=5`, {
      headers: { ...AUTH, ...namespace, traceparent: traceparent(PARENTS['listPets'] as string) },
    })
    t.equal(faulted.status, 503)
    const nowhere = await fetch(`${sandbox.baseUrl}/nowhere`, { headers: AUTH })
    t.equal(nowhere.status, 404)
    // The pages have no span: only the APIs' requests.
    t.equal((await fetch(new URL('/healthz', sandbox.baseUrl))).status, 200)

    await waitFor(() => receiver.spans.length >= 4, { what: 'the receiver to hold the four spans' })
    const byOperation = new Map(
      receiver.spans.map((span) => [attributesOf(span)['sandbox.operation_id'] ?? 'none', span]),
    )
    t.same(
      receiver.spans.map((span) => span.name).sort(),
      ['GET', 'GET /v1/pets', 'GET /v1/pets/{petId}', 'POST /__admin/faults'],
      'one span per call, named {method} {route} as the conventions name server spans',
    )
    t.same([...byOperation.keys()].sort(), ['addFault', 'getPet', 'listPets', 'none'], 'its operationId beside')
    for (const [operationId, span] of byOperation)
      if (operationId !== 'none')
        t.match(
          span,
          { traceId: TRACE_ID, kind: 2, parentSpanId: PARENTS[operationId as string] },
          `${operationId}: a server span, in the caller’s trace`,
        )
    const [api, control, fault, unmatched] = (['getPet', 'addFault', 'listPets', 'none'] as const).map((name) =>
      byOperation.get(name)!,
    )
    const sent = { origin: new URL(sandbox.baseUrl).origin, version: '1.1' } as const
    checkConventions(t, api!, { ...sent, route: '/v1/pets/{petId}', status: deprecated.status })
    checkConventions(t, control!, { ...sent, route: '/__admin/faults', query: 'namespace=traced', status: 201 })
    checkConventions(t, fault!, { ...sent, route: '/v1/pets', query: 'limit=5', status: 503 })
    checkConventions(t, unmatched!, { ...sent, status: 404 })
    t.match(attributesOf(api!), {
      'http.request.method': 'GET',
      'url.path': '/v1/pets/1',
      'sandbox.namespace': 'traced',
      'sandbox.deprecated': true,
    })
    t.notOk('sandbox.fault' in attributesOf(api!))
    t.match(attributesOf(control!), { 'http.request.method': 'POST', 'sandbox.namespace': 'traced' })
    t.match(attributesOf(fault!), { 'sandbox.namespace': 'traced', 'sandbox.fault': /status 503/ })
    t.notOk('sandbox.deprecated' in attributesOf(fault!))
    t.match(attributesOf(unmatched!), { 'url.path': '/v1/nowhere', 'sandbox.namespace': 'default' })
    t.match(await readFile(sandbox.modules, 'utf8'), /@opentelemetry\/sdk-trace-node/, 'the SDK was loaded')
  },
)

t.test('over HTTPS and HTTP/2: url.scheme https, network.protocol.version 2, the server from :authority', async (t) => {
  const cli = await buildCli(t)
  const receiver = await otlpReceiver(t)
  const caFile = join(await tempDir(t), 'ca.pem')
  const sandbox = await startLogged(t, cli, {
    TLS: 'auto',
    TLS_CA_OUT: caFile,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '50',
  })
  const { origin } = new URL(sandbox.baseUrl)
  const session = http2Connect(origin, { ca: await readFile(caFile, 'utf8') })
  t.teardown(() => session.close())
  const status = await new Promise<number>((resolve, reject) => {
    const stream = session.request({ ':path': '/v1/pets?limit=1', ...AUTH, 'user-agent': 'telemetry-test/1' })
    stream.on('response', (headers) => resolve(Number(headers[':status'])))
    stream.on('error', reject)
    stream.resume()
  })
  t.equal(status, 200)
  await waitFor(() => receiver.spans.length >= 1, { what: 'the receiver to hold the span' })
  const [span] = receiver.spans
  checkConventions(t, span!, { origin, version: '2', route: '/v1/pets', query: 'limit=1', status: 200 })
  t.equal(attributesOf(span!)[semconv.ATTR_USER_AGENT_ORIGINAL], 'telemetry-test/1')
})

t.test(
  'with no OTEL_* variables the SDK is not loaded, log lines still carry the trace id, /metrics scrapes',
  async (t) => {
    const cli = await buildCli(t)
    const bare = Object.fromEntries(
      Object.keys(process.env)
        .filter((k) => k.startsWith('OTEL_'))
        .map((k) => [k, '']),
    )
    const sandbox = await startLogged(t, cli, bare)
    const get = (headers: Record<string, string>) =>
      fetch(`${sandbox.baseUrl}/pets`, { headers: { ...AUTH, ...headers } })
    t.equal((await get({ traceparent: traceparent(PARENTS['getPet'] as string) })).status, 200)
    t.equal((await get({ traceparent: `00-${'0'.repeat(32)}-${PARENTS['getPet']}-01` })).status, 200)
    await waitFor(() => sandbox.stdout.split('\n').filter((line) => line.includes('"msg":"request"')).length >= 2, {
      what: 'two request log lines',
    })
    const lines = sandbox.stdout
      .split('\n')
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as { traceId?: string })
    t.equal(lines[0]?.traceId, TRACE_ID, 'a valid traceparent: its trace id')
    t.equal(lines[1]?.traceId, undefined, 'an invalid one (an all-zero trace id): none')
    // prom-client is left out of the bundle: the first scrape loads it.
    const scraped = await fetch(new URL('/metrics', sandbox.baseUrl), { headers: ADMIN_AUTH })
    t.match(await scraped.text(), /^process_resident_memory_bytes /m, 'the built command scrapes with prom-client')
    sandbox.child.kill('SIGTERM')
    await sandbox.exited
    const modules = await readFile(sandbox.modules, 'utf8')
    t.match(modules, /cli\.js/, 'the module log works')
    t.notMatch(modules, /@opentelemetry/, 'nothing of OpenTelemetry was loaded')
  },
)

t.test('an export the receiver refuses is a warning in the log', async (t) => {
  const receiver = await otlpReceiver(t)
  const sandbox = await spawnCli(t, {
    API_KEYS: API_KEY,
    LOG_LEVEL: 'warn',
    DATA_FILE: ':memory:',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint.replace('/v1/traces', '/elsewhere'),
    OTEL_BSP_SCHEDULE_DELAY: '50',
  })
  t.equal((await fetch(`${sandbox.baseUrl}/pets`, { headers: AUTH })).status, 200)
  await waitFor(() => sandbox.stdout.includes('OpenTelemetry:'), { what: 'a warning about the failed export' })
  t.match(JSON.parse(sandbox.stdout.split('\n').find((line) => line.includes('OpenTelemetry:')) ?? '{}'), {
    level: 40,
  })
})
t.test('OTEL_* settings the sandbox cannot honour stop the start with one line naming them', async (t) => {
  const endpoint = 'http://127.0.0.1:4318'
  const cases: Array<{ env: Record<string, string>; names: RegExp }> = [
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, names: /OTEL_EXPORTER_OTLP_ENDPOINT must be an http/ },
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'zipkin' },
      names: /OTEL_TRACES_EXPORTER=zipkin/,
    },
    {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      names: /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/,
    },
  ]
  for (const c of cases) {
    const { code, stderr } = await runCliToEnd(c.env)
    t.not(code, 0, `${JSON.stringify(c.env)} → non-zero exit`)
    t.match(stderr, c.names)
    t.equal(stderr.trim().split('\n').length, 1, 'one line')
  }
})
