// OpenTelemetry: server spans exported over OTLP/HTTP to a receiver, parented to the caller's
// traceparent, when the OTEL_* variables ask for it; nothing of the SDK loaded when they do not.
import { createServer, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
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
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean }
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
    const faulted = await fetch(`${sandbox.baseUrl}/pets`, {
      headers: { ...AUTH, ...namespace, traceparent: traceparent(PARENTS['listPets'] as string) },
    })
    t.equal(faulted.status, 503)
    // The pages have no span: only the APIs' requests.
    t.equal((await fetch(new URL('/healthz', sandbox.baseUrl))).status, 200)

    await waitFor(() => receiver.spans.length >= 3, { what: 'the receiver to hold the three spans' })
    const byName = new Map(receiver.spans.map((span) => [span.name, span]))
    t.same([...byName.keys()].sort(), ['addFault', 'getPet', 'listPets'], 'one span per call, named by its operationId')
    for (const span of receiver.spans)
      t.match(
        span,
        { traceId: TRACE_ID, kind: 2, parentSpanId: PARENTS[span.name] },
        `${span.name}: a server span, in the caller’s trace`,
      )
    const [api, control, fault] = (['getPet', 'addFault', 'listPets'] as const).map((name) => byName.get(name)!)
    t.match(attributesOf(api!), {
      'http.request.method': 'GET',
      'http.route': '/v1/pets/{petId}',
      'url.path': '/v1/pets/1',
      'http.response.status_code': deprecated.status,
      'sandbox.namespace': 'traced',
      'sandbox.deprecated': true,
    })
    t.notOk('sandbox.fault' in attributesOf(api!))
    t.match(attributesOf(control!), {
      'http.request.method': 'POST',
      'http.route': '/__admin/faults',
      'http.response.status_code': 201,
      'sandbox.namespace': 'traced',
    })
    t.match(attributesOf(fault!), {
      'http.route': '/v1/pets',
      'http.response.status_code': 503,
      'sandbox.namespace': 'traced',
      'sandbox.fault': /status 503/,
    })
    t.notOk('sandbox.deprecated' in attributesOf(fault!))
    t.match(await readFile(sandbox.modules, 'utf8'), /@opentelemetry\/sdk-trace-node/, 'the SDK was loaded')
  },
)

t.test('with no OTEL_* variables the SDK is not loaded, and log lines still carry the trace id', async (t) => {
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
  sandbox.child.kill('SIGTERM')
  await sandbox.exited
  const modules = await readFile(sandbox.modules, 'utf8')
  t.match(modules, /cli\.js/, 'the module log works')
  t.notMatch(modules, /@opentelemetry/, 'nothing of OpenTelemetry was loaded')
})

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
