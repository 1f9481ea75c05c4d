// Request validation, driven by the operation's parameters and body schema from the spec.
// Query and path values are text: they are converted by the type their schema declares, strictly
// ("1.5" is not an integer, "" is not a number), then checked by the compiled ajv validator.
import type { IncomingMessage } from 'node:http'
import { declaresEmptyBody, MAX_BODY_BYTES, readJsonBody, type ReadBody } from '../http/body.js'
import { ERRORS, HttpError } from '../http/errors.js'
import { describeErrors } from '../contract/load.js'
import { type Operation, type ParameterSpec } from '../contract/types.js'

export interface ValidInput {
  readonly path: Record<string, unknown>
  readonly query: Record<string, unknown>
  /** The header parameters the spec declares, by the spec's name (Idempotency-Key). */
  readonly header: Record<string, unknown>
  readonly body: unknown
}

/** Path or query parameters as sent, by name: a name given more than once has an array of values. */
export type ParameterValues = ReadonlyMap<string, string | readonly string[]>

/**
 * The codes of the 400s validation answers for `op`, kept beside the checks that throw them: the
 * coverage report lists each as a response of its own.
 */
export function badRequestCodes(op: Operation): string[] {
  return [
    // Not for a header: the only one, createPet's optional Idempotency-Key, is not a response every suite must provoke.
    ...(op.parameters.some((p) => p.in === 'query' || p.in === 'path') ? [ERRORS.invalidParameter.code] : []),
    // readJsonBody (http/body.ts) answers malformed_json for a body that is not JSON.
    ...(op.requestBody ? [ERRORS.invalidBody.code, ERRORS.malformedJson.code] : []),
  ]
}

/** Synchronous unless the operation takes a body, which must be read first. */
export function validateRequest(
  op: Operation,
  req: IncomingMessage,
  pathParams: ParameterValues,
  queryParams: ParameterValues,
  maxJsonDepth?: number,
): ValidInput | Promise<ValidInput> {
  const path = convertParameters(op.parameters, 'path', pathParams)
  const query = convertParameters(op.parameters, 'query', queryParams)
  const header = op.validateHeader ? convertParameters(op.parameters, 'header', headerValues(req)) : NO_HEADERS
  check(op.validatePath, path, 'path')
  check(op.validateQuery, query, 'query')
  check(op.validateHeader, header, 'header')
  if (!op.requestBody) return { path, query, header, body: undefined }
  // Nothing to wait for when the request declares no body (a reset's POST): answered in this turn.
  if (declaresEmptyBody(req)) return { path, query, header, body: checkBody(op.requestBody, { present: false }) }
  return validateBody(op.requestBody, req, maxJsonDepth).then((body) => ({ path, query, header, body }))
}

const NO_HEADERS: Record<string, unknown> = Object.freeze(Object.create(null))

/** The request's headers by lower-case name; one sent more than once has an array of values. */
function headerValues(req: IncomingMessage): ParameterValues {
  const values = new Map<string, string | readonly string[]>()
  // HTTP/2's compatibility request has no headersDistinct: there a repeated header comes joined.
  const headers: Record<string, string | string[] | undefined> = req.headersDistinct ?? req.headers
  for (const [name, given] of Object.entries(headers)) {
    if (typeof given === 'string') values.set(name, given)
    else if (given !== undefined) values.set(name, given.length === 1 ? (given[0] as string) : given)
  }
  return values
}

async function validateBody(
  requestBody: NonNullable<Operation['requestBody']>,
  req: IncomingMessage,
  maxJsonDepth: number | undefined,
): Promise<unknown> {
  return checkBody(requestBody, await readJsonBody(req, MAX_BODY_BYTES, maxJsonDepth))
}

function checkBody(requestBody: NonNullable<Operation['requestBody']>, read: ReadBody): unknown {
  if (!read.present) {
    if (requestBody.required)
      throw new HttpError(ERRORS.invalidBody, 'The request body is required: send a JSON object')
    return undefined
  }
  if (!requestBody.validate(read.value))
    throw new HttpError(
      ERRORS.invalidBody,
      `Invalid request body: ${describeErrors(requestBody.validate.errors, 'body')}`,
    )
  return read.value
}

function check(validate: Operation['validateQuery'], values: Record<string, unknown>, location: string): void {
  if (validate && !validate(values)) {
    throw new HttpError(
      ERRORS.invalidParameter,
      `Invalid ${location} parameter: ${describeErrors(validate.errors, location)}`,
    )
  }
}

function convertParameters(
  parameters: readonly ParameterSpec[],
  location: 'path' | 'query' | 'header',
  given: ParameterValues,
): Record<string, unknown> {
  // A null prototype: parameter names come from the spec, but nothing here should reach Object.prototype.
  const values: Record<string, unknown> = Object.create(null)
  for (const parameter of parameters) {
    if (parameter.in !== location) continue
    // Header names are case-insensitive: Node gives them in lower case.
    const value = given.get(location === 'header' ? parameter.name.toLowerCase() : parameter.name)
    if (value === undefined) continue
    if (typeof value !== 'string')
      throw new HttpError(
        ERRORS.invalidParameter,
        `Invalid ${location} parameter: ${parameter.name} is given more than once`,
      )
    if (parameter.schema['type'] === 'integer' && NUMERAL.test(value) && !CANONICAL_INTEGER.test(value)) {
      throw new HttpError(
        ERRORS.invalidParameter,
        `Invalid ${location} parameter: ${location}.${parameter.name} must be a plain decimal integer, without '+' or leading zeros, got ${JSON.stringify(value)}`,
      )
    }
    values[parameter.name] = convertText(value, parameter.schema['type'])
  }
  return values
}

// An integer parameter has one written form (an id or a limit names one value, one way): `01`,
// `+1` and `-0` are refused with a reason, as is anything else that is not an integer.
const NUMERAL = /^[+-]?\d+$/
const CANONICAL_INTEGER = /^(0|-?[1-9]\d*)$/

/** Converts by the declared type; text that does not convert exactly stays text, so ajv names the type it wanted. */
function convertText(text: string, type: unknown): unknown {
  switch (type) {
    case 'integer': {
      if (!CANONICAL_INTEGER.test(text)) return text
      // Too many digits for a number: still an integer, beyond every range the spec allows, so the
      // range or int64 check names the problem instead of "must be an integer".
      const value = Number(text)
      return Number.isFinite(value) ? value : Math.sign(value) * 2 ** 64
    }
    case 'number':
      return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text) ? Number(text) : text
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text
    default:
      return text
  }
}
