// The spec, compiled at build time: scripts/compile-spec.ts writes dist/spec.compiled.js with the
// dereferenced spec and ajv's validators as standalone code, so a start needs neither the YAML
// parser, nor the $ref resolver, nor ajv's compiler. The module records the hash of the spec it
// was made from; if the spec has changed since the build, loadSpec compiles it at start instead.
//
// The validators' code is kept as text, each turned into a function at its first call, as ajv turns
// the code it generates: a start reads 130 KB of text instead of parsing it as code, and most of
// the control API's operations are never called.
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js'
import { COMPILED_SPEC } from '../paths.js'
import { FORMATS } from './formats.js'
import type { ApiSpec, Operation, SpecFile, SpecOperations } from './types.js'

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
  /** The document and its schemas only where a start reads them: the API's, not the control API's. */
  readonly DATA: Partial<Pick<SpecFile, 'document' | 'schemas'>> & {
    basePath: string
    operations: SerialisedOperation[]
  }
  /** Each validator's code, as ajv's standalone mode writes it (CommonJS), by name. */
  readonly VALIDATORS: Record<string, string>
}

export function specHash(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** The compiled API spec when a build made one from this very text; undefined otherwise. */
export async function loadCompiledSpec(text: string, module: URL = COMPILED_SPEC): Promise<ApiSpec | undefined> {
  const compiled = await loadCompiledModule(text, module)
  if (!compiled) return undefined
  const { spec, validator } = compiled
  const { document, schemas } = spec
  if (document === undefined || schemas === undefined) return undefined
  return { ...spec, document, schemas, validatePet: validator('Pet'), validatePets: validator('Pets') }
}

/** The operations of a compiled spec (the control API's, for one) made from this very text; undefined otherwise. */
export async function loadCompiledOperations(text: string, module: URL): Promise<SpecOperations | undefined> {
  const compiled = await loadCompiledModule(text, module)
  return compiled && { basePath: compiled.spec.basePath, operations: compiled.spec.operations }
}

async function loadCompiledModule(
  text: string,
  module: URL,
): Promise<
  | {
      spec: SpecOperations & Partial<Pick<SpecFile, 'document' | 'schemas'>>
      validator: (name: string) => ValidateFunction
    }
  | undefined
> {
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
  // The runtime helpers ajv's code requires (ajv/dist/runtime/*), found from the module's place.
  const require = createRequire(module)
  const validator = (name: string): ValidateFunction => {
    const source = VALIDATORS[name]
    if (source === undefined) throw new Error(`${module.pathname} has no validator ${name}: rebuild`)
    return compiledOnFirstCall(source, require)
  }
  const optional = (name: string | undefined): ValidateFunction | undefined =>
    name === undefined ? undefined : validator(name)
  const spec = {
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

/**
 * The source of a compiled spec module for a spec loaded (and compiled) from `text`: its document
 * and schemas when `spec` has them (the API's), its operations alone otherwise.
 */
export function compiledSpecSource(
  spec: SpecOperations &
    Partial<Pick<SpecFile, 'document' | 'schemas'> & Pick<ApiSpec, 'validatePet' | 'validatePets'>>,
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
  const sources = Object.fromEntries(validators.map(([name, validate]) => [name, standaloneCode(ajv, validate)]))
  return [
    '// Generated at build time from the spec by scripts/compile-spec.ts: do not edit.',
    `export const SOURCE_SHA256 = ${JSON.stringify(specHash(text))}`,
    // JSON.parse of a string reads faster than V8 parses an object literal of this size.
    `export const DATA = JSON.parse(${JSON.stringify(JSON.stringify({ ...rest, operations }))})`,
    `export const VALIDATORS = ${JSON.stringify(sources)}`,
    '',
  ].join('\n')
}

/**
 * A validator that compiles ajv's standalone code at its first call, then calls what it compiled
 * and shows that function's errors as its own.
 */
function compiledOnFirstCall(source: string, require: NodeJS.Require): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate = ((data: unknown) => {
    compiled ??= compile(source, require)
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }) as ValidateFunction
  return validate
}

/** The function of ajv's standalone code (CommonJS: it sets module.exports, and names `formats`). */
function compile(source: string, require: NodeJS.Require): ValidateFunction {
  const module: { exports: unknown } = { exports: {} }
  // What ajv does with the code it generates, here with the code a build saved.
  new Function('module', 'require', 'formats', source)(module, require, FORMATS)
  return module.exports as ValidateFunction
}
