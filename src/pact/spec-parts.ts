// The parts of the spec's document a Pact needs, as written there (summaries, responses by status,
// headers) with their schemas' $refs followed: the compiled operations keep validators, not these.
import type { ApiSpec, JsonSchema, Operation } from '../contract/types.js'

/** The operation as the spec's document has it (not dereferenced: its summary and responses' names). */
function operationObject(spec: ApiSpec, operation: Operation): Record<string, any> {
  const paths = spec.document['paths'] as Record<string, Record<string, any>>
  return paths[operation.path]?.[operation.method.toLowerCase()] ?? {}
}

export function summaryOf(spec: ApiSpec, operation: Operation): string {
  return (operationObject(spec, operation)['summary'] as string | undefined) ?? operation.operationId
}

/** Follows a local $ref of the spec's document. */
function resolve(spec: ApiSpec, value: any): any {
  let current = value
  for (let i = 0; i < 10 && typeof current?.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, part: string) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], spec.document)
  }
  return current
}

function responseObject(spec: ApiSpec, operation: Operation, status: number): any {
  const responses = operationObject(spec, operation)['responses'] ?? {}
  return resolve(spec, responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'])
}

export function responseBodySchema(spec: ApiSpec, operation: Operation, status: number): JsonSchema | undefined {
  const schema = responseObject(spec, operation, status)?.content?.['application/json']?.schema
  return schema === undefined ? undefined : dereferenced(spec, schema)
}

export function requestBodySchema(spec: ApiSpec, operation: Operation): JsonSchema | undefined {
  const schema = resolve(spec, operationObject(spec, operation)['requestBody'])?.content?.['application/json']?.schema
  return schema === undefined ? undefined : dereferenced(spec, schema)
}

export function headerSchemaOf(spec: ApiSpec, operation: Operation, status: number, name: string): unknown {
  return responseObject(spec, operation, status)?.headers?.[name]
}

/** A schema with its $refs, allOf included, replaced by what they name (the spec's schemas are acyclic). */
function dereferenced(spec: ApiSpec, schema: any): JsonSchema {
  const resolved = resolve(spec, schema)
  if (Array.isArray(resolved?.allOf)) {
    const parts = resolved.allOf.map((part: unknown) => dereferenced(spec, part))
    return {
      ...resolved,
      allOf: undefined,
      type: 'object',
      properties: Object.assign({}, ...parts.map((p: any) => p.properties ?? {})),
      required: parts.flatMap((p: any) => p.required ?? []),
    }
  }
  if (resolved?.type === 'array') return { ...resolved, items: dereferenced(spec, resolved.items ?? {}) }
  if (resolved?.properties)
    return {
      ...resolved,
      properties: Object.fromEntries(
        Object.entries(resolved.properties).map(([name, property]) => [name, dereferenced(spec, property)]),
      ),
    }
  return resolved ?? {}
}
