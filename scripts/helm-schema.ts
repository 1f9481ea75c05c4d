// Writes the Helm chart's values schema: the chart's own values as deploy/helm/values.schema.base.json
// has them by hand, and under `env` a property for each setting of the table (src/settings.ts) that
// the chart does not set itself, with what its reader accepts and its help. test/deploy/helm.test.ts
// fails when the committed schema differs.
import { readFileSync, writeFileSync } from 'node:fs'
import { namesOf, SETTINGS, type Setting } from '../src/settings.js'

export const BASE = 'deploy/helm/values.schema.base.json'
export const SCHEMA = 'deploy/helm/animal-store-sandbox/values.schema.json'

interface EnvSchema {
  propertyNames: { not: { enum: string[] } }
  [keyword: string]: unknown
}
interface Base {
  $comment: string
  properties: { env: EnvSchema; [value: string]: unknown }
  [keyword: string]: unknown
}

/** The values schema, as its file holds it, made from the base's text. */
export function valuesSchema(baseText: string): string {
  const base = JSON.parse(baseText) as Base
  const env = base.properties.env
  const setByTheChart = env.propertyNames.not.enum
  const settings: Record<string, unknown> = {}
  for (const key of Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>) {
    const { env: variable } = namesOf(key)
    if (variable === undefined || setByTheChart.includes(variable)) continue
    const declared: Setting<unknown> = SETTINGS[key]
    settings[variable] = { description: declared.help, ...(declared.parse.accepts ?? { type: 'string' }) }
  }
  const schema = {
    ...base,
    $comment: `Made by \`npm run docs:settings\` from ${BASE} (the chart's own values) and src/settings.ts (env): edit those.`,
    properties: { ...base.properties, env: { ...env, properties: settings, additionalProperties: false } },
  }
  return `${JSON.stringify(schema, null, 2)}\n`
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(SCHEMA, valuesSchema(readFileSync(BASE, 'utf8')))
