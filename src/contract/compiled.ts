// The spec, compiled at build time: scripts/compile-spec.ts writes dist/spec.compiled.js with the
// dereferenced spec and ajv's validators as standalone code, so a start needs neither the YAML
// parser, nor the $ref resolver, nor ajv's compiler. The module records the hash of the spec it
// was made from; if the spec has changed since the build, loadSpec compiles it at start instead.
import { createHash } from 'node:crypto'
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js'
import { COMPILED_SPEC } from '../paths.js'
import type { ApiSpec, Operation, SpecFile } from './types.js'

type SerialisedOperation = Omit<
  Operation,
  'deprecatedSince' | 'sunset' | 'validateQuery' | 'validatePath' | 'validateHeader' | 'requestBody'
> & {
  deprecatedSince: string | undefined
  sunset: string | undefined
  validateQuery: string | undefined
  validatePath: string | undefined
  validateHeader: string | undefined
  requestBody: { required: boolean; validate: string } | undefined
}

interface CompiledSpecModule {
  readonly SOURCE_SHA256: string
  readonly DATA: Pick<SpecFile, 'document' | 'basePath' | 'schemas'> & { operations: SerialisedOperation[] }
  readonly VALIDATORS: Record<string, ValidateFunction>
}

export function specHash(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** The compiled API spec when a build made one from this very text; undefined otherwise. */
export async function loadCompiledSpec(text: string, module: URL = COMPILED_SPEC): Promise<ApiSpec | undefined> {
  const compiled = await loadCompiledSpecFile(text, module)
  if (!compiled) return undefined
  const { spec, validator } = compiled
  return { ...spec, validatePet: validator('Pet'), validatePets: validator('Pets') }
}

/** Any compiled spec file (the control API's, for one) made from this very text; undefined otherwise. */
export async function loadCompiledSpecFile(
  text: string,
  module: URL,
): Promise<{ spec: SpecFile; validator: (name: string) => ValidateFunction } | undefined> {
  let compiled: CompiledSpecModule
  try {
    compiled = (await import(module.href)) as CompiledSpecModule
  } catch (error) {
    // No build (running from src/): the spec is compiled at start. Loaders word this differently.
    const { code, message } = error as NodeJS.ErrnoException
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /Cannot find module/.test(message))
      return undefined
    throw error
  }
  if (compiled.SOURCE_SHA256 !== specHash(text)) return undefined
  const { DATA, VALIDATORS } = compiled
  const validator = (name: string): ValidateFunction => {
    const validate = VALIDATORS[name]
    if (!validate) throw new Error(`spec.compiled.js has no validator ${name}: rebuild`)
    return validate
  }
  const optional = (name: string | undefined): ValidateFunction | undefined =>
    name === undefined ? undefined : validator(name)
  const spec: SpecFile = {
    ...DATA,
    operations: DATA.operations.map((op) => ({
      ...op,
      deprecatedSince: op.deprecatedSince === undefined ? undefined : new Date(op.deprecatedSince),
      sunset: op.sunset === undefined ? undefined : new Date(op.sunset),
      validateQuery: optional(op.validateQuery),
      validatePath: optional(op.validatePath),
      validateHeader: optional(op.validateHeader),
      requestBody: op.requestBody && {
        required: op.requestBody.required,
        validate: validator(op.requestBody.validate),
      },
    })),
  }
  return { spec, validator }
}

/** The source of a compiled spec module for a spec loaded (and compiled) from `text`. */
export function compiledSpecSource(
  spec: SpecFile & Partial<Pick<ApiSpec, 'validatePet' | 'validatePets'>>,
  text: string,
  ajv: Ajv2020,
  standaloneCode: (ajv: Ajv2020, validate: ValidateFunction) => string,
): string {
  const validators: Array<[string, ValidateFunction]> = []
  const named = (name: string, validate: ValidateFunction | undefined): string | undefined => {
    if (!validate) return undefined
    validators.push([name, validate])
    return name
  }
  const operations: SerialisedOperation[] = spec.operations.map((op) => ({
    ...op,
    deprecatedSince: op.deprecatedSince?.toISOString(),
    sunset: op.sunset?.toISOString(),
    validateQuery: named(`${op.operationId}.query`, op.validateQuery),
    validatePath: named(`${op.operationId}.path`, op.validatePath),
    validateHeader: named(`${op.operationId}.header`, op.validateHeader),
    requestBody: op.requestBody && {
      required: op.requestBody.required,
      validate: named(`${op.operationId}.body`, op.requestBody.validate) as string,
    },
  }))
  named('Pet', spec.validatePet)
  named('Pets', spec.validatePets)
  const rest = { document: spec.document, basePath: spec.basePath, schemas: spec.schemas }
  // Each validator is ajv's CommonJS standalone code, wrapped in a function of its own so that
  // the names ajv gives inside do not collide.
  const entries = validators.map(
    ([name, validate]) =>
      `  ${JSON.stringify(name)}: (function (module) {\n${standaloneCode(ajv, validate)}\nreturn module.exports\n})({ exports: {} }),`,
  )
  return [
    '// Generated at build time from the spec by scripts/compile-spec.ts: do not edit.',
    "import { createRequire } from 'node:module'",
    "import { FORMATS as formats } from './contract/formats.js'",
    'const require = createRequire(import.meta.url)',
    `export const SOURCE_SHA256 = ${JSON.stringify(specHash(text))}`,
    // JSON.parse of a string reads faster than V8 parses an object literal of this size.
    `export const DATA = JSON.parse(${JSON.stringify(JSON.stringify({ ...rest, operations }))})`,
    'export const VALIDATORS = {',
    ...entries,
    '}',
    '',
  ].join('\n')
}
