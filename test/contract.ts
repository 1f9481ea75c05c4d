// Checks an answer against the contract read from spec/openapi.yaml: a 2xx body against the
// operation's response schema, anything else against the Error schema with a matching status.
import { dereference } from '@apidevtools/json-schema-ref-parser'
import type { ValidateFunction } from 'ajv'
import { ERRORS } from '../src/errors.js'
import { createAjv, loadSpec, type ApiSpec } from '../src/spec.js'

export const ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ERRORS).map((e) => e.code))

export interface Contract {
  readonly spec: ApiSpec
  /** Problems with an answer; empty when it keeps the contract. */
  check(operationId: string | undefined, answer: { status: number; contentType: string | undefined; body: Buffer | string }, isHead?: boolean): string[]
}

export async function loadContract(): Promise<Contract> {
  const spec = await loadSpec()
  const resolved = (await dereference(structuredClone(spec.document), { resolve: { external: false } })) as Record<string, any>
  const ajv = createAjv()
  const validateError = ajv.compile(resolved['components'].schemas.Error)
  const success = new Map<string, ValidateFunction>()
  for (const op of spec.operations) {
    const responses = resolved['paths'][op.path][op.method.toLowerCase()].responses as Record<string, any>
    for (const [status, response] of Object.entries(responses)) {
      const schema = response?.content?.['application/json']?.schema
      if (/^2\d\d$/.test(status) && schema) success.set(`${op.operationId} ${status}`, ajv.compile(schema))
    }
  }

  return {
    spec,
    check(operationId, { status, contentType, body }, isHead = false) {
      const problems: string[] = []
      if (status >= 500 && !(status === 501 && operationId === 'listOrders')) problems.push(`a ${status} answer`)
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
        if (!validate) problems.push(`${status} is not a success the spec declares for ${operationId}`)
        else if (!validate(json)) problems.push(`the ${status} body breaks the spec: ${ajv.errorsText(validate.errors)}`)
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
