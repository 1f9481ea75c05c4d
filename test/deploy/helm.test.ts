// The Helm chart in its two shapes, linted (`helm lint --strict`), rendered (`helm template`) and
// each rendered manifest checked by kubeconform in strict mode against the Kubernetes API's schemas
// (scripts/kubeconform.sh), and wired together (selectors, ports, volumes); its values schema, made
// from the settings table, refusing replicas without a database and settings the sandbox would refuse.
// CI installs helm and kubeconform; elsewhere the tests that need one skip.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { parse, parseAllDocuments, stringify } from 'yaml'
import { SCHEMA, valuesSchema } from '../../scripts/helm-schema.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { mustRun, runProgram, skipWithout } from '../support/system-programs.js'

const CHART = join(ROOT, 'deploy/helm/animal-store-sandbox')
const DATABASE_URL = 'postgres://sandbox:secret@postgres:5432/sandbox'
const TOKEN = ['--set', 'auth.adminToken=a-token-of-our-own']
const SHARED = ['--set', `database.url=${DATABASE_URL}`, ...TOKEN]

const helmSkip = skipWithout(t, 'helm', { source: 'go install helm.sh/helm/v3/cmd/helm, the version .ci/run pins' })
// kubeconform and its schemas are made by scripts/kubeconform.sh, with Go and Python.
const kubeSkip = helmSkip || skipWithout(t, 'go', 'golang') || skipWithout(t, 'python3', 'python3-venv')

/** A rendered manifest, as the tests read it (parsed YAML: they match against its shape). */
type Manifest = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: any; data?: any }

const helm = (args: string[]) => runProgram('helm', args, ROOT, {}, 120_000)

/** `helm template` of the chart with `values`: its text and its manifests. */
async function render(values: string[]): Promise<{ text: string; manifests: Manifest[] }> {
  const { stdout } = await mustRun('helm', ['template', 'sandbox', CHART, ...values], ROOT, {}, 120_000)
  return { text: stdout, manifests: manifestsOf(stdout) }
}
const manifestsOf = (text: string): Manifest[] =>
  parseAllDocuments(text)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null)

const only = (manifests: Manifest[], kind: string): Manifest => {
  const found = manifests.filter((manifest) => manifest.kind === kind)
  if (found.length !== 1) throw new Error(`${found.length} ${kind}s rendered, not one`)
  return found[0] as Manifest
}
const kinds = (manifests: Manifest[]) => manifests.map((manifest) => manifest.kind).sort()
const container = (manifests: Manifest[]) => only(manifests, 'Deployment').spec.template.spec.containers[0]
const envOf = (manifests: Manifest[], name: string) =>
  container(manifests).env?.find((env: { name: string }) => env.name === name)

/** kubeconform, strict, on `rendered`: its exit code and output. Its first run makes its schemas. */
async function validate(t: Test, rendered: string) {
  const file = join(await tempDir(t), 'rendered.yaml')
  await writeFile(file, rendered)
  return runProgram('bash', [join(ROOT, 'scripts/kubeconform.sh'), '-summary', file], ROOT, {}, 600_000)
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
  const { spec } = only(manifests, 'Deployment')
  const labels = spec.template.metadata.labels ?? {}
  const selects = (selector: Record<string, unknown> = {}) =>
    Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value)
  if (!selects(spec.selector?.matchLabels)) problems.push("the Deployment's selector misses its pods")
  const service = only(manifests, 'Service')
  if (!selects(service.spec.selector)) problems.push("the Service's selector misses the pods")
  const ports = container(manifests).ports?.map((port: { name: string }) => port.name) ?? []
  for (const { targetPort } of service.spec.ports ?? [])
    if (!ports.includes(String(targetPort)))
      problems.push(`the Service's targetPort ${targetPort} is no container port`)
  const volumes = spec.template.spec.volumes?.map((volume: { name: string }) => volume.name) ?? []
  for (const mount of container(manifests).volumeMounts ?? [])
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
  for (const values of [[], SHARED]) {
    const run = await helm(['lint', '--strict', CHART, ...values])
    t.equal(run.code, 0, `${values.join(' ')}: ${run.output.trim().split('\n').slice(-3).join(' / ')}`)
  }
})

t.test('every render is valid to kubeconform, labelled and wired together', { skip: kubeSkip }, async (t) => {
  const renders = await Promise.all(
    [[], SHARED, [...TOKEN, '--set', 'env.SEED=7'], ['--set', 'database.existingSecret=pg']].map(render),
  )
  const validation = await validate(t, renders.map(({ text }) => text).join(''))
  t.equal(validation.code, 0, 'every manifest is valid', { output: validation.output })
  t.match(validation.output, /Valid: 14, Invalid: 0, Errors: 0, Skipped: 0/)
  for (const { manifests } of renders) t.same(problemsNoSchemaSees(manifests), [], 'labelled and wired together')
})

t.test('the single shape: one replica with its data file on a claim at /data', { skip: helmSkip }, async (t) => {
  const { manifests } = await render([])
  t.same(kinds(manifests), ['Deployment', 'PersistentVolumeClaim', 'Service'])
  const { spec } = only(manifests, 'Deployment')
  // Recreate: the old pod lets go of the data file before the new one starts.
  t.matchStrict(spec, {
    replicas: 1,
    strategy: { type: 'Recreate' },
    template: { spec: { securityContext: { runAsNonRoot: true, runAsUser: 1000 } } },
  })
  const data = container(manifests).volumeMounts?.find((mount: { mountPath: string }) => mount.mountPath === '/data')
  const volume = spec.template.spec.volumes?.find((volume: { name: string }) => volume.name === data?.name)
  t.equal(volume?.persistentVolumeClaim?.claimName, only(manifests, 'PersistentVolumeClaim').metadata.name)
  t.equal(envOf(manifests, 'DATABASE_URL'), undefined, 'no database')
  t.matchStrict(container(manifests).securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false })

  // A token and a setting: the token from the chart's Secret, the setting as text whatever its YAML type.
  const configured = await render([...TOKEN, '--set', 'env.SEED=7'])
  t.same(Object.keys(only(configured.manifests, 'Secret').data), ['ADMIN_TOKEN'])
  t.same(envOf(configured.manifests, 'SEED'), { name: 'SEED', value: '7' })
})

// The shared shape: replicas on a database URL from a Secret, readiness on /readyz, liveness on /healthz.
t.test('the shared shape: replicas on a database, probes, a budget, no claim', { skip: helmSkip }, async (t) => {
  const { text, manifests } = await render(SHARED)
  t.same(kinds(manifests), ['Deployment', 'PodDisruptionBudget', 'Secret', 'Service'])
  const { spec } = only(manifests, 'Deployment')
  t.equal(spec.replicas, 3)
  t.not(spec.strategy?.type, 'Recreate', 'a rolling update')
  t.notMatch(JSON.stringify(spec.template), /persistentVolumeClaim|"\/data"/, 'no claim, nothing at /data')

  const secret = only(manifests, 'Secret')
  for (const [name, value] of [
    ['DATABASE_URL', DATABASE_URL],
    ['ADMIN_TOKEN', 'a-token-of-our-own'],
  ] as const) {
    t.same(envOf(manifests, name)?.valueFrom?.secretKeyRef, { name: secret.metadata.name, key: name }, name)
    t.equal(Buffer.from(secret.data[name] ?? '', 'base64').toString(), value, `the Secret holds ${name}`)
  }
  t.notOk(text.includes(DATABASE_URL), 'the URL (and its password) is in the Secret only')
  t.matchStrict(container(manifests), {
    ports: [{ name: 'http', containerPort: 4010 }],
    readinessProbe: { httpGet: { path: '/readyz', port: 'http' } },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http' } },
  })
  const budget = only(manifests, 'PodDisruptionBudget')
  t.equal(budget.spec.maxUnavailable, 1)
  t.same(budget.spec.selector, spec.selector, "it covers the Deployment's pods")

  // A Secret of one's own: referenced, not made; and as many replicas as asked for.
  const own = await render(['--set', 'database.existingSecret=pg', '--set', 'database.existingSecretKey=url'])
  t.same(envOf(own.manifests, 'DATABASE_URL')?.valueFrom?.secretKeyRef, { name: 'pg', key: 'url' })
  t.notOk(kinds(own.manifests).includes('Secret'), 'no Secret made when nothing is given inline')
  const five = await render([...SHARED, '--set', 'replicaCount=5'])
  t.equal(only(five.manifests, 'Deployment').spec.replicas, 5)
})

t.test('kubeconform and the wiring check refuse what the API server would', { skip: kubeSkip }, async (t) => {
  const { text } = await render([])
  for (const [from, to, expected] of [
    [
      'readOnlyRootFilesystem',
      'readOnlyRootFileSystem',
      /securityContext': additional properties 'readOnlyRootFileSystem' not allowed/,
    ],
    [
      'containerPort: 4010',
      'containerPort: "4010"',
      /containers\/0\/ports\/0\/containerPort': got string, want integer/,
    ],
    ['apiVersion: apps/v1', 'apiVersion: apps/v1beta1', /could not find schema for Deployment/],
  ] as const) {
    const validation = await validate(t, text.replace(from, to))
    t.equal(validation.code, 1, `${to}: refused`)
    t.match(validation.output, expected)
  }
  const rewired = (from: string | RegExp, to: string) => problemsNoSchemaSees(manifestsOf(text.replaceAll(from, to)))
  t.same(rewired('targetPort: http', 'targetPort: web'), ["the Service's targetPort web is no container port"])
  t.same(rewired(/name: tmp(\s+)mountPath/g, 'name: scratch$1mountPath'), ['the mount at /tmp has no volume'])
  t.same(rewired('app.kubernetes.io/instance: sandbox', 'instance: sandbox'), [
    'PersistentVolumeClaim has no app.kubernetes.io/instance',
    'Service has no app.kubernetes.io/instance',
    'Deployment has no app.kubernetes.io/instance',
  ])
})

t.test('the values schema is the one made from the settings table (npm run docs:settings)', async (t) => {
  t.equal(valuesSchema(), await readFile(join(ROOT, SCHEMA), 'utf8'), 'npm run docs:settings changes nothing')
})

t.test('the values schema refuses bad settings and replicas without a database', { skip: helmSkip }, async (t) => {
  const template = async (values: Record<string, unknown>) => {
    const file = join(await tempDir(t), 'values.yaml')
    // Every string quoted: Helm reads YAML 1.1, where a bare on is true.
    await writeFile(file, stringify(values, { defaultStringType: 'QUOTE_DOUBLE' }))
    return helm(['template', 'sandbox', CHART, '--values', file])
  }
  const database = { url: DATABASE_URL }
  for (const values of [
    { env: { SEED: 7, LOG_LEVEL: 'debug', MAX_PETS: '12', MCP_ALL_NAMESPACES: true, NAMESPACE_FROM_TRACE: 'on' } },
    { env: { TLS: 'auto', TRACE_NAMESPACE_BASELINE: 'clean', OTEL_SERVICE_NAME: 'store' } },
    { replicaCount: 1 },
    { replicaCount: 3, database },
    { replicaCount: 2, database: { existingSecret: 'pg' } },
  ]) {
    const run = await template(values)
    t.equal(run.code, 0, `accepted: ${JSON.stringify(values)}`, { output: run.output })
  }
  for (const [values, expected] of [
    [{ replicaCount: 3 }, /\/replicaCount/],
    [{ database: { url: 'mysql://db/sandbox' } }, /\/database\/url/],
    [{ database: { ...database, existingSecret: 'pg' } }, /'\/database': 'not' failed/],
    [{ env: { LOG_LEVL: 'debug' } }, /additional properties 'LOG_LEVL' not allowed/],
    [{ env: { LOG_LEVEL: 'loud' } }, /\/env\/LOG_LEVEL': value must be one of 'fatal'/],
    [{ env: { SEED: -1 } }, /\/env\/SEED': minimum/],
    [{ env: { SEED: 'seven' } }, /\/env\/SEED': 'seven' does not match pattern/],
    [{ env: { NAMESPACE_FROM_TRACE: true } }, /\/env\/NAMESPACE_FROM_TRACE': value must be one of 'on', 'off'/],
    [{ env: { UPSTREAM_API_KEY: 'a key' } }, /\/env\/UPSTREAM_API_KEY': 'a key' does not match pattern/],
    [{ env: { ADMIN_TOKEN: 'a-token' } }, /'ADMIN_TOKEN' not allowed/],
  ] as const) {
    const run = await template(values)
    t.not(run.code, 0, `refused: ${JSON.stringify(values)}`)
    t.match(run.output, expected)
  }
})
