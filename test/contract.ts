// Checks an answer against the contract read from spec/openapi.yaml: a 2xx body against the
// operation's response schema, anything else against the Error schema with a matching status.
import { dereference } from '@apidevtools/json-schema-ref-parser'
import type { ValidateFunction } from 'ajv'
import { ERRORS } from '../src/http/errors.js'
import { fileURLToPath } from 'node:url'
import { createAjv, loadSpecFile, readSpecDocument } from '../src/spec/load.js'
import { type SpecFile } from '../src/spec/types.js'
import { SPEC_FILE } from '../src/paths.js'

export const ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ERRORS).map((e) => e.code))

export interface Contract {
  readonly spec: SpecFile
  /** Problems with an answer; empty when it keeps the contract. */
  check(operationId: string | undefined, answer: { status: number; contentType: string | undefined; body: Buffer | string }, isHead?: boolean): string[]
}

/** The contract of one spec file: the Animal Store API (default) or the control API. */
export async function loadContract(file: URL = SPEC_FILE): Promise<Contract> {
  const spec = await loadSpecFile(file)
  const resolved = (await dereference(fileURLToPath(file), structuredClone(readSpecDocument(file)), { resolve: { external: true } })) as Record<string, any>
  const ajv = createAjv()
  const api = (await dereference(fileURLToPath(SPEC_FILE), structuredClone(readSpecDocument(SPEC_FILE)), { resolve: { external: true } })) as Record<string, any>
  const validateError = ajv.compile(api['components'].schemas.Error)
  // A declared 2xx without content maps to undefined: its body must be empty.
  const success = new Map<string, ValidateFunction | undefined>()
  for (const op of spec.operations) {
    const responses = resolved['paths'][op.path][op.method.toLowerCase()].responses as Record<string, any>
    for (const [status, response] of Object.entries(responses)) {
      const schema = response?.content?.['application/json']?.schema
      if (/^2\d\d$/.test(status)) success.set(`${op.operationId} ${status}`, schema ? ajv.compile(schema) : undefined)
    }
  }

  return {
    spec,
    check(operationId, { status, contentType, body }, isHead = false) {
      const problems: string[] = []
      if (status >= 500 && !(status === 501 && operationId === 'listOrders')) problems.push(`a ${status} answer`)
      if (status >= 200 && status < 300) {
        const key = `${operationId} ${status}`
        if (!operationId || !success.has(key)) problems.push(`${status} is not a success the spec declares for ${operationId}`)
        else if (success.get(key) === undefined) {
          if (body.length > 0) problems.push(`${status} declares no content, got ${JSON.stringify(body.toString().slice(0, 200))}`)
          return problems
        }
      }
      if (!/^application\/json(;|$)/.test(contentType ?? '')) problems.push(`Content-Type is ${JSON.stringify(contentType)}, not application/json`)
      if (isHead) return problems
      let json: any
      try {
        json = JSON.parse(body.toString())
      } catch {
        problems.push(`the body is not JSON: ${JSON.stringify(body.toString().slice(0, 200))}`)
        return problems
      }
      if (status >= 200 && status < 300) {
        const validate = operationId ? success.get(`${operationId} ${status}`) : undefined
        if (validate && !validate(json)) problems.push(`the ${status} body breaks the spec: ${ajv.errorsText(validate.errors)}`)
      } else {
        if (!validateError(json)) problems.push(`the Error body breaks the spec: ${ajv.errorsText(validateError.errors)}`)
        else {
          const error = json as { status: number; code: string }
          if (error.status !== status) problems.push(`Error.status ${error.status} differs from the HTTP status ${status}`)
          if (!ERROR_CODES.has(error.code)) problems.push(`Error.code ${JSON.stringify(error.code)} is not a documented code`)
        }
      }
      return problems
    },
  }
}
