// Writes the Helm chart's values schema: the chart's own values as CHART_VALUES has them by hand,
// and under `env` a property for each setting of the table (src/settings.ts) that the chart does
// not set itself, with what its reader accepts and its help. test/deploy/helm.test.ts fails when
// the committed schema differs.
import { writeFileSync } from 'node:fs'
import { namesOf, SETTINGS, type Setting } from '../src/settings.js'

export const SCHEMA = 'deploy/helm/animal-store-sandbox/values.schema.json'

/** The variables the chart sets from its own values: `env` may not name them. */
const SET_BY_THE_CHART = ['DATABASE_URL', 'API_KEYS', 'ADMIN_TOKEN', 'PORT', 'HOST']
const PORT = { type: 'integer', minimum: 1, maximum: 65535 }
const AT_LEAST_ONE = { type: 'integer', minimum: 1 }
const object = (properties: object, required?: string[]) => ({
  type: 'object',
  ...(required && { required }),
  properties,
  additionalProperties: false,
})

const CHART_VALUES = {
  $schema: 'https://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['image', 'database', 'auth', 'containerPort', 'service', 'persistence'],
  properties: {
    image: object(
      {
        repository: { type: 'string', minLength: 1 },
        tag: { type: 'string' },
        pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
      },
      ['repository'],
    ),
    imagePullSecrets: { type: 'array', items: { type: 'object' } },
    nameOverride: { type: 'string' },
    fullnameOverride: { type: 'string' },
    replicaCount: AT_LEAST_ONE,
    database: {
      ...object({
        url: { type: 'string', pattern: '^(postgres(ql)?://.+)?$', description: 'a postgres:// URL, or empty' },
        existingSecret: { type: 'string' },
        existingSecretKey: { type: 'string', minLength: 1 },
      }),
      not: {
        description: 'either url or existingSecret, not both',
        properties: { url: { minLength: 1 }, existingSecret: { minLength: 1 } },
        required: ['url', 'existingSecret'],
      },
    },
    auth: object({
      apiKeys: { type: 'array', items: { type: 'string', pattern: '^[^,\\s]+$' } },
      adminToken: { type: 'string', not: { const: 'sandbox-admin-token' } },
      existingSecret: { type: 'string' },
    }),
    env: {
      type: 'object',
      description:
        "more settings, by their variables: those of the settings table (made from it: npm run docs:settings), and OpenTelemetry's; those the chart sets itself are refused here",
      propertyNames: { not: { enum: SET_BY_THE_CHART } },
      patternProperties: {
        '^OTEL_[A-Z0-9_]+$': { type: 'string', description: "OpenTelemetry's variables (docs/telemetry.md)" },
      },
    },
    containerPort: PORT,
    service: object({ type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] }, port: PORT }, ['type', 'port']),
    persistence: object(
      {
        size: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$' },
        storageClass: { type: 'string' },
        accessMode: { enum: ['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany'] },
        existingClaim: { type: 'string' },
      },
      ['size', 'accessMode'],
    ),
    podDisruptionBudget: object({ maxUnavailable: { type: ['integer', 'string'] } }, ['maxUnavailable']),
    readinessProbe: { $ref: '#/definitions/probe' },
    livenessProbe: { $ref: '#/definitions/probe' },
    resources: { type: 'object' },
    podSecurityContext: { type: 'object' },
    securityContext: { type: 'object' },
    podAnnotations: { type: 'object', additionalProperties: { type: 'string' } },
    nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
    tolerations: { type: 'array' },
    affinity: { type: 'object' },
    global: { type: 'object', description: "Helm's values shared with subcharts; unused" },
  },
  additionalProperties: false,
  if: {
    description: 'no database: the single shape',
    properties: { database: { properties: { url: { const: '' }, existingSecret: { const: '' } } } },
  },
  then: {
    properties: {
      replicaCount: {
        const: 1,
        description:
          'without a database the sandbox keeps a data file, which two processes cannot share: set database.url or database.existingSecret for replicas',
      },
    },
  },
  definitions: {
    probe: object({ periodSeconds: AT_LEAST_ONE, timeoutSeconds: AT_LEAST_ONE, failureThreshold: AT_LEAST_ONE }),
  },
}

/** The values schema, as its file holds it. */
export function valuesSchema(): string {
  const settings: Record<string, unknown> = {}
  for (const key of Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>) {
    const { env: variable } = namesOf(key)
    if (variable === undefined || SET_BY_THE_CHART.includes(variable)) continue
    const declared: Setting<unknown> = SETTINGS[key]
    settings[variable] = { description: declared.help, ...(declared.parse.accepts ?? { type: 'string' }) }
  }
  const { env } = CHART_VALUES.properties
  const schema = {
    $comment:
      "Made by `npm run docs:settings` from scripts/helm-schema.ts (the chart's own values) and src/settings.ts (env): edit those.",
    ...CHART_VALUES,
    properties: { ...CHART_VALUES.properties, env: { ...env, properties: settings, additionalProperties: false } },
  }
  return `${JSON.stringify(schema, null, 2)}\n`
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(SCHEMA, valuesSchema())
