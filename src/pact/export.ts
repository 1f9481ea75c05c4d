// A namespace's journal as a Pact V4, one interaction per request and response shape. The journal
// keeps no response bodies: each is its schema's example with matchers from the schema, so the Pact
// states what the contract promises rather than one run's values.
import type { components } from '../contract/admin-types.js'
import type { ApiSpec, Operation } from '../contract/types.js'
import { headerSchemaOf, requestBodySchema, responseBodySchema, summaryOf } from './spec-parts.js'
import { petState, type ProviderState } from './states.js'

type JournalEntry = components['schemas']['JournalEntry']

/** As the sandbox answers JSON; the verifier compares this header's value whatever its matcher. */
const JSON_MEDIA_TYPE = 'application/json; charset=utf-8'
/** What the journal's credentials are in a Pact: the verifier puts a real key in its place. */
export const REDACTED_BEARER = 'Bearer [REDACTED]'
/** A key that is not the provider's: the request of an interaction that expects 401 for a wrong key. */
export const WRONG_KEY_BEARER = 'Bearer not-a-valid-key'

export interface PactSource {
  readonly consumer: string
  readonly provider: string
  readonly namespace: string
  /** The journal's entries, oldest first. */
  readonly entries: readonly JournalEntry[]
  /** Entries the journal dropped (JOURNAL_SIZE and its byte bound): calls the Pact cannot show. */
  readonly dropped: number
  /** The data the namespace started from. */
  readonly state: ProviderState
}

type Rules = Record<string, { combine: 'AND'; matchers: Record<string, unknown>[] }>

/** The Pact of the entries: those answered by the provider itself (no fault or Prefer) on an operation of the spec. */
export function pactOf(spec: ApiSpec, source: PactSource) {
  const byShape = new Map<string, [JournalEntry, Operation]>()
  let excluded = 0
  for (const entry of source.entries) {
    const operation = spec.operations.find((op) => op.operationId === entry.operationId)
    if (operation === undefined || entry.status === null || entry.fault !== null) excluded++
    else if (!byShape.has(shapeOf(entry))) byShape.set(shapeOf(entry), [entry, operation])
  }
  const descriptions = new Set<string>()
  const interactions = [...byShape.values()].map(([entry, operation]) => {
    const interaction = interactionOf(spec, operation, entry, source.state)
    // Descriptions name an interaction for people and for brokers: each is unique.
    let description = interaction.description
    for (let n = 2; descriptions.has(description); n++) description = `${interaction.description} (${n})`
    descriptions.add(description)
    return { ...interaction, description }
  })
  return {
    consumer: { name: source.consumer },
    provider: { name: source.provider },
    interactions,
    metadata: {
      pactSpecification: { version: '4.0' },
      'animal-store-sandbox': {
        namespace: source.namespace,
        calls: source.entries.length,
        interactions: interactions.length,
        // Shaped by a fault or Prefer, cut off, or on a path the spec does not have: not the provider's own answers.
        excluded,
        dropped: source.dropped,
        ...(source.dropped > 0
          ? {
              warning: `The journal dropped its ${source.dropped} oldest calls (JOURNAL_SIZE): their interactions are missing, and the data state is the one before them`,
            }
          : {}),
      },
    },
  }
}

/** What makes two calls the same interaction: the operation, the answer, the query's and body's names, the credentials' presence. */
function shapeOf(entry: JournalEntry): string {
  return JSON.stringify([
    entry.operationId,
    entry.status,
    entry.error?.code ?? null,
    Object.keys(entry.query).sort(),
    bodyKeys(entry.body),
    credentialOf(entry),
  ])
}

function bodyKeys(body: unknown): string[] | string {
  if (body === null || body === undefined) return 'none'
  return typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).sort() : typeof body
}

/** The credential an entry sent, as a Pact shows it: the placeholder of a valid key, a wrong key, or none. */
function credentialOf(entry: JournalEntry): string | undefined {
  const sent = Object.entries(entry.headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1]
  if (sent === undefined) return undefined
  return entry.status === 401 ? WRONG_KEY_BEARER : REDACTED_BEARER
}

function interactionOf(spec: ApiSpec, operation: Operation, entry: JournalEntry, state: ProviderState) {
  const status = entry.status as number
  const query: Record<string, string[]> = Object.fromEntries(
    Object.entries(entry.query).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  )
  const queryText = new URLSearchParams(
    Object.entries(query).flatMap(([name, values]) => values.map((value): [string, string] => [name, value])),
  ).toString()
  const credential = credentialOf(entry)
  const headers: Record<string, string[]> = {}
  const headerRules: Rules = {}
  if (credential !== undefined) {
    headers['Authorization'] = [credential]
    if (credential === REDACTED_BEARER) headerRules['Authorization'] = rule({ match: 'regex', regex: '^Bearer \\S+$' })
  }
  const sentJson = entry.body !== null && entry.body !== undefined
  if (sentJson) headers['Content-Type'] = ['application/json']
  const requestSchema = requestBodySchema(spec, operation)
  const requestBodyRules = status < 400 && requestSchema ? rulesOf(requestSchema, '$') : {}

  const responseSchema = responseBodySchema(spec, operation, status)
  const pathId = /\/(\d+)$/.exec(entry.path)?.[1]
  const example = responseSchema ? exampleOf(responseSchema, entry, status) : undefined
  const responseHeaders: Record<string, string[]> = {}
  const responseHeaderRules: Rules = {}
  if (example !== undefined) {
    responseHeaders['Content-Type'] = [JSON_MEDIA_TYPE]
    responseHeaderRules['Content-Type'] = rule({ match: 'regex', regex: '^application/json(;.*)?$' })
  }
  const location = headerSchemaOf(spec, operation, status, 'Location')
  if (location !== undefined) {
    responseHeaders['Location'] = [
      `${spec.basePath}/pets/${typeof example === 'object' ? (example as { id?: number }).id : 1}`,
    ]
    responseHeaderRules['Location'] = rule({ match: 'regex', regex: `^${spec.basePath}/pets/\\d+$` })
  }

  const providerStates = [state]
  // A pet read by its id must exist whatever the data: the consumer may have read one it made.
  if (pathId !== undefined && status === 200) providerStates.push(petState(Number(pathId)))

  const summary = summaryOf(spec, operation)
  const sentBody = sentJson && bodyKeys(entry.body)
  const what = Array.isArray(sentBody) ? ` {${sentBody.join(', ')}}` : ''
  const who =
    credential === undefined ? ' without an API key' : credential === WRONG_KEY_BEARER ? ' with a wrong API key' : ''
  const answer = `${status}${entry.error ? ` ${entry.error.code}` : ''}`

  return {
    type: 'Synchronous/HTTP' as const,
    description: `${summary}: ${entry.method} ${entry.path}${queryText ? `?${queryText}` : ''}${what}${who} answers ${answer}`,
    providerStates,
    request: {
      method: entry.method,
      path: entry.path,
      ...(queryText ? { query } : {}),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(sentJson ? { body: jsonBody(entry.body) } : {}),
      matchingRules: {
        ...(Object.keys(headerRules).length > 0 ? { header: headerRules } : {}),
        ...(Object.keys(requestBodyRules).length > 0 ? { body: requestBodyRules } : {}),
      },
    },
    response: {
      status,
      headers: responseHeaders,
      ...(example === undefined ? {} : { body: jsonBody(example) }),
      matchingRules: {
        ...(Object.keys(responseHeaderRules).length > 0 ? { header: responseHeaderRules } : {}),
        ...(responseSchema ? { body: rulesOf(responseSchema, '$') } : {}),
      },
    },
  }
}

function jsonBody(content: unknown) {
  return { content, contentType: 'application/json', encoded: false as const }
}

function rule(matcher: Record<string, unknown>): Rules[string] {
  return { combine: 'AND', matchers: [matcher] }
}

/** The matchers a schema implies at `path`: an enum as a regex, an integer as an integer, any other value by its type. */
function rulesOf(schema: any, path: string): Rules {
  if (Array.isArray(schema.enum))
    return { [path]: rule({ match: 'regex', regex: `^(${schema.enum.map(escapeRegex).join('|')})$` }) }
  if (schema.type === 'array')
    return { [path]: rule({ match: 'type', min: 0 }), ...rulesOf(schema.items ?? {}, `${path}[*]`) }
  if (schema.type === 'object' || schema.properties)
    return Object.assign(
      {},
      ...Object.entries<any>(schema.properties ?? {}).map(([name, property]) => rulesOf(property, `${path}.${name}`)),
    )
  if (schema.type === 'integer') return { [path]: rule({ match: 'integer' }) }
  return { [path]: rule({ match: 'type' }) }
}

function escapeRegex(value: unknown): string {
  return String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The body a call of this shape is answered: the Error the call got, the pet it created (its body
 * and an id), else the schema's example. Every property the schema names is there: the sandbox
 * answers each (a pet always has a status).
 */
function exampleOf(schema: any, entry: JournalEntry, status: number): unknown {
  if (entry.error !== null) return { code: entry.error.code, message: entry.error.message, status }
  const example = exampleOfSchema(schema)
  if (status === 201 && isObject(entry.body) && isObject(example))
    return { ...example, ...pick(entry.body, Object.keys(example)) }
  const id = /\/(\d+)$/.exec(entry.path)?.[1]
  if (id !== undefined && isObject(example) && 'id' in example) return { ...example, id: Number(id) }
  return example
}

function exampleOfSchema(schema: any): unknown {
  if (schema.example !== undefined) return schema.example
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (schema.type === 'array') return [exampleOfSchema(schema.items ?? {})]
  if (schema.type === 'object' || schema.properties)
    return Object.fromEntries(
      Object.entries<any>(schema.properties ?? {}).map(([name, property]) => [name, exampleOfSchema(property)]),
    )
  if (schema.type === 'integer' || schema.type === 'number') return 1
  if (schema.type === 'boolean') return true
  return 'text'
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function pick(value: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => name in value).map((name) => [name, value[name]]))
}
