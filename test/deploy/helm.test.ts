// The deployment files: the Helm chart in its two shapes, linted (`helm lint --strict`), rendered
// (`helm template`) and each rendered manifest checked by kubeconform in strict mode against the
// Kubernetes API's schemas (scripts/kubeconform.sh), and wired together (selectors, ports, volumes);
// its values schema, made from the settings table, refusing replicas without a database and settings
// the sandbox would refuse; the compose file (three replicas on one DATABASE_URL, PostgreSQL,
// HAProxy) and haproxy.cfg (`haproxy -c`).
// CI installs helm, kubeconform, docker-compose and haproxy; elsewhere the tests that need one skip.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { parse, parseAllDocuments, stringify } from 'yaml'
import { BASE, SCHEMA, valuesSchema } from '../../scripts/helm-schema.js'
import { composeCommand } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { mustRun, REQUIRE_PROGRAMS, runProgram, skipWithout } from '../support/system-programs.js'

const CHART = join(ROOT, 'deploy/helm/animal-store-sandbox')
const KUBECONFORM = join(ROOT, 'scripts/kubeconform.sh')
const DATABASE_URL = 'postgres://sandbox:secret@postgres:5432/sandbox'
const SINGLE: string[] = []
const SHARED = ['--set', `database.url=${DATABASE_URL}`, '--set', 'auth.adminToken=a-token-of-our-own']

const helmSkip = skipWithout(t, 'helm', { source: 'go install helm.sh/helm/v3/cmd/helm, the version .ci/run pins' })
// kubeconform and its schemas are made by scripts/kubeconform.sh, with Go and Python.
const kubeconformSkip = skipWithout(t, 'go', 'golang') || skipWithout(t, 'python3', 'python3-venv')

interface Container {
  ports?: Array<{ name: string; containerPort: number }>
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>
  readinessProbe?: { httpGet?: { path: string; port: string } }
  livenessProbe?: { httpGet?: { path: string; port: string } }
  volumeMounts?: Array<{ name: string; mountPath: string }>
  securityContext?: Record<string, unknown>
}
/** The fields of the rendered manifests that the tests read. */
interface Manifest {
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  data?: Record<string, string>
  spec?: {
    replicas?: number
    strategy?: { type: string }
    /** A Deployment's and a PodDisruptionBudget's; a Service's is the labels themselves. */
    selector?: { matchLabels?: Record<string, string> } & Record<string, unknown>
    ports?: Array<{ name: string; targetPort: string | number }>
    maxUnavailable?: number
    template?: {
      metadata?: { labels?: Record<string, string> }
      spec: {
        containers: Container[]
        securityContext?: Record<string, unknown>
        volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>
      }
    }
  }
}

const helm = (args: string[]) => runProgram('helm', args, ROOT, {}, 120_000)

/** `helm template` of the chart with `values`: its text and its manifests. */
async function render(values: string[]): Promise<{ text: string; manifests: Manifest[] }> {
  const { stdout } = await mustRun('helm', ['template', 'sandbox', CHART, ...values], ROOT, {}, 120_000)
  const manifests = parseAllDocuments(stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null)
  return { text: stdout, manifests }
}

const only = (manifests: Manifest[], kind: string): Manifest => {
  const found = manifests.filter((manifest) => manifest.kind === kind)
  if (found.length !== 1) throw new Error(`${found.length} ${kind}s rendered, not one`)
  return found[0] as Manifest
}
const container = (deployment: Manifest): Container => deployment.spec?.template?.spec.containers[0] ?? {}
const envOf = (deployment: Manifest, name: string) => container(deployment).env?.find((env) => env.name === name)

/** kubeconform, strict, on `rendered`: its exit code and output. Its first run makes its schemas. */
async function validate(t: Test, rendered: string) {
  const file = join(await tempDir(t), 'rendered.yaml')
  await writeFile(file, rendered)
  return runProgram('bash', [KUBECONFORM, '-summary', file], ROOT, {}, 600_000)
}

/**
 * What no schema sees: the recommended labels on every object (docs/deploy.md promises them), and the
 * render's parts reaching each other: the Deployment and the Service select the pods (the API refuses
 * a Deployment that does not; a Service that does not reaches no sandbox), the Service's target port
 * is a port of theirs, and each mount has its volume.
 */
function problemsNoSchemaSees(manifests: Manifest[]): string[] {
  const problems: string[] = []
  for (const { kind, metadata } of manifests)
    for (const label of ['name', 'instance', 'managed-by'])
      if (!metadata.labels?.[`app.kubernetes.io/${label}`]) problems.push(`${kind} has no app.kubernetes.io/${label}`)
  const deployment = only(manifests, 'Deployment')
  const labels = deployment.spec?.template?.metadata?.labels ?? {}
  const selects = (selector: Record<string, unknown> = {}) =>
    Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value)
  if (!selects(deployment.spec?.selector?.matchLabels)) problems.push("the Deployment's selector misses its pods")
  const service = only(manifests, 'Service')
  if (!selects(service.spec?.selector)) problems.push("the Service's selector misses the pods")
  const ports = container(deployment).ports?.map((port) => port.name) ?? []
  for (const { targetPort } of service.spec?.ports ?? [])
    if (!ports.includes(String(targetPort)))
      problems.push(`the Service's targetPort ${targetPort} is no container port`)
  const volumes = deployment.spec?.template?.spec.volumes?.map((volume) => volume.name) ?? []
  for (const mount of container(deployment).volumeMounts ?? [])
    if (!volumes.includes(mount.name)) problems.push(`the mount at ${mount.mountPath} has no volume`)
  return problems
}

t.test("the chart is at the package's version", async (t) => {
  const chart = parse(await readFile(join(CHART, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string }
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
  t.equal(chart.version, version, 'version')
  t.equal(chart.appVersion, version, 'appVersion: the image tag npm run image gives')
})

t.test('helm lint --strict passes on both shapes', { skip: helmSkip }, async (t) => {
  for (const [shape, values] of [
    ['single', SINGLE],
    ['shared', SHARED],
  ] as const) {
    const run = await helm(['lint', '--strict', CHART, ...values])
    t.equal(run.code, 0, `${shape}: ${run.output.trim().split('\n').slice(-3).join(' / ')}`)
  }
})

t.test(
  'the single shape: one replica with its data file on a claim at /data',
  { skip: helmSkip || kubeconformSkip },
  async (t) => {
    const { text, manifests } = await render(SINGLE)
    t.same(manifests.map((manifest) => manifest.kind).sort(), ['Deployment', 'PersistentVolumeClaim', 'Service'])
    const deployment = only(manifests, 'Deployment')
    t.equal(deployment.spec?.replicas, 1)
    t.equal(
      deployment.spec?.strategy?.type,
      'Recreate',
      'the old pod lets go of the data file before the new one starts',
    )
    const data = container(deployment).volumeMounts?.find((mount) => mount.mountPath === '/data')
    const volume = deployment.spec?.template?.spec.volumes?.find((volume) => volume.name === data?.name)
    t.equal(volume?.persistentVolumeClaim?.claimName, only(manifests, 'PersistentVolumeClaim').metadata.name)
    t.equal(envOf(deployment, 'DATABASE_URL'), undefined, 'no database')
    t.match(
      container(deployment).securityContext,
      { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
      'a read-only root filesystem',
    )
    t.match(deployment.spec?.template?.spec.securityContext, { runAsNonRoot: true, runAsUser: 1000 }, 'as user node')

    const validation = await validate(t, text)
    t.equal(validation.code, 0, 'every manifest is valid', { output: validation.output })
    t.match(validation.output, /Valid: 3, Invalid: 0, Errors: 0, Skipped: 0/)
    t.same(problemsNoSchemaSees(manifests), [], 'labelled and wired together')

    // A token and a setting: the token from the chart's Secret, the setting as text whatever its YAML type.
    const configured = await render(['--set', 'auth.adminToken=a-token-of-our-own', '--set', 'env.SEED=7'])
    t.same(Object.keys(only(configured.manifests, 'Secret').data ?? {}), ['ADMIN_TOKEN'])
    t.same(envOf(only(configured.manifests, 'Deployment'), 'SEED'), { name: 'SEED', value: '7' })
    t.equal((await validate(t, configured.text)).code, 0)
  },
)

t.test(
  'the shared shape: three replicas on a database URL from a Secret, readiness on /readyz, liveness on /healthz, a PodDisruptionBudget, no claim',
  { skip: helmSkip || kubeconformSkip },
  async (t) => {
    const { text, manifests } = await render(SHARED)
    t.same(manifests.map((manifest) => manifest.kind).sort(), [
      'Deployment',
      'PodDisruptionBudget',
      'Secret',
      'Service',
    ])
    const deployment = only(manifests, 'Deployment')
    t.equal(deployment.spec?.replicas, 3)
    t.not(deployment.spec?.strategy?.type, 'Recreate', 'a rolling update')
    t.notOk(
      deployment.spec?.template?.spec.volumes?.some((volume) => volume.persistentVolumeClaim),
      'no claim mounted',
    )
    t.notOk(
      container(deployment).volumeMounts?.some((mount) => mount.mountPath === '/data'),
      'nothing at /data',
    )

    const secret = only(manifests, 'Secret')
    for (const [name, value] of [
      ['DATABASE_URL', DATABASE_URL],
      ['ADMIN_TOKEN', 'a-token-of-our-own'],
    ] as const) {
      t.same(envOf(deployment, name)?.valueFrom?.secretKeyRef, { name: secret.metadata.name, key: name }, name)
      t.equal(Buffer.from(secret.data?.[name] ?? '', 'base64').toString(), value, `the Secret holds ${name}`)
    }
    t.notOk(text.includes(DATABASE_URL), 'the URL (and its password) is in the Secret only')

    const port = container(deployment).ports?.[0]
    t.equal(port?.containerPort, 4010)
    for (const [probe, path] of [
      ['readinessProbe', '/readyz'],
      ['livenessProbe', '/healthz'],
    ] as const)
      t.same(container(deployment)[probe]?.httpGet, { path, port: port?.name }, probe)

    const budget = only(manifests, 'PodDisruptionBudget')
    t.equal(budget.spec?.maxUnavailable, 1)
    t.same(budget.spec?.selector, deployment.spec?.selector, "it covers the Deployment's pods")

    const validation = await validate(t, text)
    t.equal(validation.code, 0, 'every manifest is valid', { output: validation.output })
    t.match(validation.output, /Valid: 4, Invalid: 0, Errors: 0, Skipped: 0/)
    t.same(problemsNoSchemaSees(manifests), [], 'labelled and wired together')

    // A Secret of one's own: referenced, not made; and as many replicas as asked for.
    const own = await render(['--set', 'database.existingSecret=pg', '--set', 'database.existingSecretKey=url'])
    t.same(envOf(only(own.manifests, 'Deployment'), 'DATABASE_URL')?.valueFrom?.secretKeyRef, {
      name: 'pg',
      key: 'url',
    })
    t.notOk(
      own.manifests.some((manifest) => manifest.kind === 'Secret'),
      'no Secret made when nothing is given inline',
    )
    t.equal((await validate(t, own.text)).code, 0)
    const five = await render([...SHARED, '--set', 'replicaCount=5'])
    t.equal(only(five.manifests, 'Deployment').spec?.replicas, 5)
  },
)

t.test(
  'the values schema refuses replicas without a database, and a URL that is not PostgreSQL',
  { skip: helmSkip },
  async (t) => {
    const template = (values: string[]) => helm(['template', 'sandbox', CHART, ...values])
    const refused = await template(['--set', 'replicaCount=3'])
    t.not(refused.code, 0, 'replicaCount: 3 with no database is refused')
    t.match(refused.output, /\/replicaCount/, 'naming replicaCount')
    t.equal((await template(['--set', 'replicaCount=1'])).code, 0, 'replicaCount: 1 is the single shape')
    t.equal((await template([...SHARED, '--set', 'replicaCount=3'])).code, 0, 'replicas with a database')
    t.equal((await template(['--set', 'database.existingSecret=pg', '--set', 'replicaCount=2'])).code, 0)

    const mysql = await template(['--set', 'database.url=mysql://db/sandbox'])
    t.match(mysql.output, /\/database\/url/, 'a URL of another database is refused')
    const both = await template([...SHARED, '--set', 'database.existingSecret=pg'])
    t.not(both.code, 0, 'a URL and a Secret at once is refused')
  },
)

t.test('kubeconform refuses what the API server would', { skip: helmSkip || kubeconformSkip }, async (t) => {
  const { text, manifests } = await render(SINGLE)
  for (const [change, expected] of [
    [
      ['readOnlyRootFilesystem', 'readOnlyRootFileSystem'],
      /containers\/0\/securityContext': additional properties 'readOnlyRootFileSystem' not allowed/,
    ],
    [
      ['containerPort: 4010', 'containerPort: "4010"'],
      /containers\/0\/ports\/0\/containerPort': got string, want integer/,
    ],
    [['apiVersion: apps/v1', 'apiVersion: apps/v1beta1'], /could not find schema for Deployment/],
  ] as const) {
    const validation = await validate(t, text.replace(change[0], change[1]))
    t.equal(validation.code, 1, `${change[1]}: refused`)
    t.match(validation.output, expected)
  }

  t.same(problemsNoSchemaSees(manifests), [], 'labelled and wired together')
  const rewired = (changed: string) => parseAllDocuments(changed).map((document) => document.toJS() as Manifest)
  t.same(problemsNoSchemaSees(rewired(text.replace('targetPort: http', 'targetPort: web'))), [
    "the Service's targetPort web is no container port",
  ])
  t.same(problemsNoSchemaSees(rewired(text.replace(/name: tmp(\s+)mountPath/, 'name: scratch$1mountPath'))), [
    'the mount at /tmp has no volume',
  ])
  t.same(problemsNoSchemaSees(rewired(text.replaceAll('app.kubernetes.io/instance: sandbox', 'instance: sandbox'))), [
    'PersistentVolumeClaim has no app.kubernetes.io/instance',
    'Service has no app.kubernetes.io/instance',
    'Deployment has no app.kubernetes.io/instance',
  ])
})

t.test('the values schema is the one made from the settings table (npm run docs:settings)', async (t) => {
  const committed = await readFile(join(ROOT, SCHEMA), 'utf8')
  t.equal(valuesSchema(await readFile(join(ROOT, BASE), 'utf8')), committed, 'npm run docs:settings changes nothing')
})

t.test("the values schema holds env to the settings' names and what each accepts", { skip: helmSkip }, async (t) => {
  const template = async (values: Record<string, unknown>) => {
    const file = join(await tempDir(t), 'values.yaml')
    // Every string quoted: Helm reads YAML 1.1, where a bare on is true.
    await writeFile(file, stringify({ env: values }, { defaultStringType: 'QUOTE_DOUBLE' }))
    return helm(['template', 'sandbox', CHART, '--values', file])
  }
  for (const env of [
    { SEED: 7, LOG_LEVEL: 'debug', MAX_PETS: '12', MCP_ALL_NAMESPACES: true, NAMESPACE_FROM_TRACE: 'on' },
    { TLS: 'auto', TRACE_NAMESPACE_BASELINE: 'clean', OTEL_SERVICE_NAME: 'store' },
  ]) {
    const run = await template(env)
    t.equal(run.code, 0, `accepted: ${JSON.stringify(env)}`, { output: run.output })
  }
  for (const [env, expected] of [
    [{ LOG_LEVL: 'debug' }, /additional properties 'LOG_LEVL' not allowed/],
    [{ LOG_LEVEL: 'loud' }, /\/env\/LOG_LEVEL': value must be one of 'fatal'/],
    [{ SEED: -1 }, /\/env\/SEED': minimum/],
    [{ SEED: 'seven' }, /\/env\/SEED': 'seven' does not match pattern/],
    [{ NAMESPACE_FROM_TRACE: true }, /\/env\/NAMESPACE_FROM_TRACE': value must be one of 'on', 'off'/],
    [{ UPSTREAM_API_KEY: 'a key' }, /\/env\/UPSTREAM_API_KEY': 'a key' does not match pattern/],
    [{ ADMIN_TOKEN: 'a-token' }, /'ADMIN_TOKEN' not allowed/],
  ] as const) {
    const run = await template(env)
    t.not(run.code, 0, `refused: ${JSON.stringify(env)}`)
    t.match(run.output, expected)
  }
})

/** The compose file as Compose reads it (`docker compose config`, else `docker-compose config`), else as YAML. */
async function composeConfig(t: Test, env: Record<string, string>): Promise<{ config: unknown; by: string }> {
  const file = join(ROOT, 'deploy/compose.yaml')
  const command = await composeCommand()
  if (command === undefined) {
    if (REQUIRE_PROGRAMS) t.fail('REQUIRE_PROGRAMS=1 but neither docker compose nor docker-compose is installed')
    return { config: parse(await readFile(file, 'utf8'), { merge: true }), by: 'the yaml package' }
  }
  const [program = 'docker', ...args] = command
  const run = await mustRun(program, [...args, '-f', file, 'config'], ROOT, env, 60_000)
  return { config: parse(run.stdout), by: command.join(' ') }
}

interface ComposeService {
  image: string
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }> | string[]
  healthcheck?: { test: string[] | string }
  volumes?: Array<string | { source: string; target: string }>
  ports?: Array<string | { host_ip?: string; published: string | number; target: number }>
}

t.test('the compose file: three replicas on one DATABASE_URL, PostgreSQL, HAProxy in front', async (t) => {
  // The images' and port's variables unset, whatever this machine's are: the defaults are what a user gets.
  const { config, by } = await composeConfig(t, {
    ADMIN_TOKEN: 'a-token-of-our-own',
    ANIMAL_STORE_IMAGE: '',
    POSTGRES_IMAGE: '',
    HAPROXY_IMAGE: '',
    SANDBOX_PORT: '',
  })
  t.comment(`read by ${by}`)
  const services = (config as { services: Record<string, ComposeService> }).services
  const replicas = Object.keys(services)
    .filter((name) => name.startsWith('sandbox-'))
    .sort()
  t.same(replicas, ['sandbox-1', 'sandbox-2', 'sandbox-3'])
  const urls = new Set(replicas.map((name) => services[name]?.environment?.['DATABASE_URL']))
  t.equal(urls.size, 1, 'one DATABASE_URL for all')
  t.match([...urls][0], /^postgres:\/\/[^@]+@postgres:5432\//, 'on the postgres service')
  for (const name of replicas) {
    const dependsOn = services[name]?.depends_on as Record<string, { condition: string }> | undefined
    t.equal(dependsOn?.['postgres']?.condition, 'service_healthy', `${name} starts once PostgreSQL is ready`)
  }

  const postgres = services['postgres']
  t.match(postgres?.image, /^postgres:\d+$/, 'the official postgres image')
  t.match(JSON.stringify(postgres?.healthcheck?.test), /pg_isready/)
  t.ok(postgres?.volumes?.length, 'its data on a volume')

  const haproxy = services['haproxy']
  t.match(haproxy?.image, /^haproxy:[\d.]+$/, 'the official haproxy image')
  t.match(JSON.stringify(haproxy?.ports), /127\.0\.0\.1:4010:4010|"published":"?4010\b/, 'on port 4010')
  t.match(JSON.stringify(haproxy?.volumes), /haproxy\.cfg/, 'with haproxy.cfg')
  const cfg = await readFile(join(ROOT, 'deploy/haproxy.cfg'), 'utf8')
  const servers = [...cfg.matchAll(/^\s*server (\S+) (\S+)/gm)].map((match) => `${match[1]} ${match[2]}`)
  t.same(servers, ['sandbox-1 sandbox-1:4010', 'sandbox-2 sandbox-2:4010', 'sandbox-3 sandbox-3:4010'])
  t.match(cfg, /^\s*balance roundrobin$/m)
  t.match(cfg, /^\s*http-check send meth GET uri \/readyz$/m, 'health checks on /readyz')
  t.same(
    [...cfg.matchAll(/^\s*retry-on (.+)$/gm)].map((match) => match[1]),
    ['conn-failure'],
    'a request that reached a replica is never retried',
  )

  if (by !== 'the yaml package') {
    const [program = 'docker', ...args] = by.split(' ')
    const run = await runProgram(program, [...args, '-f', join(ROOT, 'deploy/compose.yaml'), 'config'], ROOT, {
      ADMIN_TOKEN: '',
    })
    t.not(run.code, 0, 'no start without ADMIN_TOKEN')
    t.match(run.output, /set ADMIN_TOKEN/)
  }
})

t.test('haproxy -c accepts haproxy.cfg', { skip: skipWithout(t, 'haproxy', 'haproxy') }, async (t) => {
  const run = await runProgram('haproxy', ['-c', '-f', join(ROOT, 'deploy/haproxy.cfg')], ROOT, {}, 60_000)
  t.equal(run.code, 0, 'haproxy -c exits 0', { output: run.output })
  // The replicas' names resolve only inside compose's network; nothing else may be warned about.
  const warnings = run.output.split('\n').filter((line) => line.includes('[WARNING]'))
  t.same(
    warnings.filter((line) => !/could not resolve address 'sandbox-[123]'/.test(line)),
    [],
    'no warning but the names',
  )
})
