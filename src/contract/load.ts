// spec/openapi.yaml is the single source of truth: routes, security, parameter and body
// validators and the Pet schema are all read from it here, once, at start. The control API's
// spec/admin.openapi.yaml is loaded and compiled the same way (loadSpecFile).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js'
import {
  STABILITIES,
  type ApiSpec,
  type Operation,
  type ParameterSpec,
  type SpecFile,
  type SpecOperations,
  type Stability,
} from './types.js'
import { CONTROL_SPEC_FILE, COMPILED_CONTROL_SPEC, SPEC_FILE } from '../paths.js'
import { loadCompiledOperations, loadCompiledSpec } from './compiled.js'
import { FORMATS } from './formats.js'

// The YAML parser, the $ref resolver and ajv's compiler are loaded only when a spec is compiled
// at start: a build precompiles the API's (dist/spec.compiled.js), which saves a cold start their cost.
const require = createRequire(import.meta.url)

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** An operation object of an OpenAPI document, where it stands. */
export interface OperationEntry {
  readonly path: string
  readonly method: (typeof HTTP_METHODS)[number]
  readonly pathItem: Record<string, any>
  /** The Operation Object as parsed: its shape is the OpenAPI schema's. */
  readonly operation: any
}

/** Every operation of an OpenAPI document, in the document's order. */
export function* operationsOf(document: Record<string, any>): Generator<OperationEntry> {
  for (const [path, pathItem] of Object.entries<Record<string, any>>(document['paths'] ?? {})) {
    for (const method of HTTP_METHODS)
      if (pathItem[method]) yield { path, method, pathItem, operation: pathItem[method] }
  }
}

export function createAjv(): Ajv2020 {
  const { Ajv2020, _ } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')
  // code: validators keep their source and name formats by `formats`, so a build can write them
  // out as a module (compiled.ts).
  const ajv = new Ajv2020({
    allErrors: true,
    useDefaults: true,
    strict: true,
    code: { source: true, formats: _`formats` },
  })
  // OpenAPI annotations that are not JSON Schema keywords.
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs', 'faker'])
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format)
  return ajv
}

/** What the control API's compiled spec is made from: its own text and the API's, which it refers to. */
export function controlSpecSourceText(): string {
  return `${readFileSync(CONTROL_SPEC_FILE, 'utf8')}\n${readFileSync(SPEC_FILE, 'utf8')}`
}

export function readSpecDocument(file: URL | string = SPEC_FILE): Record<string, unknown> {
  return (require('yaml') as typeof import('yaml')).parse(readFileSync(file, 'utf8')) as Record<string, unknown>
}

export async function loadSpec(file: URL | string = SPEC_FILE): Promise<ApiSpec> {
  if (file !== SPEC_FILE) return compileSpec(file)
  const text = readFileSync(file, 'utf8')
  return (await loadCompiledSpec(text)) ?? compiledOnce(text, () => compileSpec(file))
}

async function compileSpec(file: URL | string): Promise<ApiSpec> {
  const spec = await loadSpecFile(file)
  const ajv = createAjv()
  return {
    ...spec,
    validatePet: ajv.compile(spec.schemas['Pet'] ?? {}),
    validatePets: ajv.compile(spec.schemas['Pets'] ?? {}),
  }
}

/**
 * The control API's operations, all a start needs of its spec: precompiled by a build without the
 * document and schemas, which nothing serves (dist/admin-spec.compiled.js), else compiled now.
 */
export async function loadControlSpec(): Promise<SpecOperations> {
  const text = controlSpecSourceText()
  return (
    (await loadCompiledOperations(text, COMPILED_CONTROL_SPEC)) ??
    (await compiledOnce(text, () => loadSpecFile(CONTROL_SPEC_FILE)))
  )
}

// The sandbox's own specs compiled from source (no build: run under tsx), once per process for one
// text, as a build's compiled module is imported once: every sandbox a process starts on that text
// shares them (a test file starts hundreds), and a changed text is compiled anew.
const compiledFromSource = new Map<string, Promise<unknown>>()

function compiledOnce<T>(text: string, compile: () => Promise<T>): Promise<T> {
  let compiled = compiledFromSource.get(text) as Promise<T> | undefined
  if (compiled === undefined) {
    compiled = compile()
    compiledFromSource.set(text, compiled)
    compiled.catch(() => compiledFromSource.delete(text)) // a failure is tried again at the next start
  }
  return compiled
}

/** Loads, dereferences and compiles one spec file. References to other files are resolved next to it. */
export async function loadSpecFile(file: URL | string): Promise<SpecFile> {
  const document = readSpecDocument(file)
  const path = typeof file === 'string' ? file : fileURLToPath(file)
  const { dereference } = await import('@apidevtools/json-schema-ref-parser')
  const resolved = (await dereference(path, structuredClone(document), { resolve: { external: true } })) as Record<
    string,
    any
  >
  const ajv = createAjv()
  const security = resolved['security'] as unknown[] | undefined

  const operations: Operation[] = []
  for (const { path, method, pathItem, operation: op } of operationsOf(resolved)) {
    const parameters: ParameterSpec[] = [...(pathItem['parameters'] ?? []), ...(op.parameters ?? [])].map((p: any) => ({
      name: p.name,
      in: p.in,
      required: p.in === 'path' || p.required === true,
      schema: p.schema ?? {},
    }))
    const body = op.requestBody?.content?.['application/json']
    operations.push({
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      // Operation-level security overrides the document's; an empty list means "no auth".
      secured: ((op.security ?? security ?? []) as unknown[]).length > 0,
      deprecated: op.deprecated === true,
      deprecatedSince: op['x-deprecated-since'] ? new Date(op['x-deprecated-since']) : undefined,
      sunset: op['x-sunset'] ? new Date(op['x-sunset']) : undefined,
      replacement: op['x-replacement'],
      stability: stabilityOf(op),
      parameters,
      validateQuery: compileParameters(ajv, parameters, 'query'),
      validatePath: compileParameters(ajv, parameters, 'path'),
      validateHeader: compileParameters(ajv, parameters, 'header'),
      requestBody: body
        ? { required: op.requestBody.required === true, validate: ajv.compile(body.schema) }
        : undefined,
      responses: Object.keys(op.responses ?? {}),
    })
  }

  return {
    document,
    basePath: basePathOf(resolved['servers']),
    operations,
    schemas: resolved['components']?.schemas ?? {},
  }
}

/** x-stability, when the operation carries it, must be one the sandbox knows: a typo must not pass for stable. */
function stabilityOf(op: Record<string, unknown>): Stability {
  const marker = op['x-stability']
  if (marker === undefined) return 'stable'
  if (!STABILITIES.includes(marker as Stability))
    throw new Error(
      `spec: ${String(op['operationId'])} has x-stability ${JSON.stringify(marker)}; it must be one of ${STABILITIES.join(', ')}`,
    )
  return marker as Stability
}

/** One object schema per parameter location, so defaults (limit = 20) come from the spec. */
function compileParameters(
  ajv: Ajv2020,
  parameters: ParameterSpec[],
  location: 'query' | 'path' | 'header',
): ValidateFunction | undefined {
  const inLocation = parameters.filter((p) => p.in === location)
  if (inLocation.length === 0) return undefined
  return ajv.compile({
    type: 'object',
    properties: Object.fromEntries(inLocation.map((p) => [p.name, p.schema])),
    required: inLocation.filter((p) => p.required).map((p) => p.name),
  })
}

export function basePathOf(servers: Array<{ url: string }> | undefined): string {
  const paths = new Set(
    (servers ?? []).map((s) =>
      new URL(
        s.url.replace(/^\{[^}]+\}/, 'http://server').replace(/\{[^}]+\}/g, 'x'),
        'http://server',
      ).pathname.replace(/\/$/, ''),
    ),
  )
  if (paths.size !== 1)
    throw new Error(`spec: every server URL must end with the same base path, got ${[...paths].join(', ')}`)
  return [...paths][0] ?? ''
}

/** Turns ajv's errors into one sentence that names each offending field, with one reason each. */
export function describeErrors(errors: ErrorObject[] | null | undefined, root: string): string {
  const sentences = onePerField(errors ?? [])
    .slice(0, 5)
    .map((e) => {
      const at = root + e.instancePath.replace(/\//g, '.')
      switch (e.keyword) {
        case 'required':
          return `${at}.${(e.params as { missingProperty: string }).missingProperty} is required`
        case 'type':
          return `${at} must be ${article((e.params as { type: string }).type)}`
        case 'additionalProperties':
        case 'unevaluatedProperties': {
          const { additionalProperty, unevaluatedProperty } = e.params as Record<string, string>
          return `${at}.${additionalProperty ?? unevaluatedProperty} is not an accepted property`
        }
        case 'enum':
          return `${at} must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
        case 'format':
          return (e.params as { format: string }).format === 'int64'
            ? `${at} must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER} (larger numbers lose precision in JSON)`
            : `${at} must match format ${(e.params as { format: string }).format}`
        default:
          return `${at} ${e.message ?? 'is invalid'}`
      }
    })
  return [...new Set(sentences)].join('; ')
}

// Of the errors ajv gives for one field, the one that says most: `status: null` is "one of: …"
// rather than "a string", and 1.5 is "an integer" rather than also "outside int64".
const TELLING: Readonly<Record<string, number>> = {
  enum: 0,
  const: 0,
  type: 1,
  minimum: 2,
  maximum: 2,
  exclusiveMinimum: 2,
  exclusiveMaximum: 2,
  format: 3,
}

function onePerField(errors: readonly ErrorObject[]): ErrorObject[] {
  const best = new Map<string, ErrorObject>()
  for (const error of errors) {
    // A missing or unknown property is a fault of its own, not of the object that holds it.
    const { missingProperty, additionalProperty, unevaluatedProperty } = error.params as Record<
      string,
      string | undefined
    >
    const field = `${error.instancePath}/${missingProperty ?? additionalProperty ?? unevaluatedProperty ?? ''}`
    const seen = best.get(field)
    if (!seen || (TELLING[error.keyword] ?? 4) < (TELLING[seen.keyword] ?? 4)) best.set(field, error)
  }
  return [...best.values()]
}

function article(type: string): string {
  if (type === 'object') return 'a JSON object'
  if (type === 'array' || type === 'integer') return `an ${type}`
  return ['string', 'number', 'boolean'].includes(type) ? `a ${type}` : type
}
