// The response checker, one set of validators compiled from a spec file for the conformance
// runner, the fuzzer and the tests, and the coverage guard: every (operation, status) the spec
// documents must be exercised by a case, so a response added to the spec cannot go untested.
import { fileURLToPath } from 'node:url'
import { dereference } from '@apidevtools/json-schema-ref-parser'
import type { ValidateFunction } from 'ajv/dist/2020.js'
import { ERRORS } from '../src/http/errors.js'
import { SPEC_FILE } from '../src/paths.js'
import { createAjv, loadSpec, loadSpecFile, operationsOf, readSpecDocument } from '../src/contract/load.js'
import type { SpecFile } from '../src/contract/types.js'

const ERROR_CODES: ReadonlySet<string> = new Set(Object.values(ERRORS).map((e) => e.code))

/** An operation and one of its documented response keys: a status such as "201", or "default". */
export interface ResponseKey {
  readonly operationId: string
  readonly response: string
}

export const keyOf = ({ operationId, response }: ResponseKey): string => `${operationId} ${response}`

/** An answer as a checker sees it: the body parsed when it was JSON. */
export interface Answer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: unknown
}

export interface Contract {
  readonly spec: SpecFile
  /** Every (operationId, response key) the spec documents. */
  readonly documented: readonly ResponseKey[]
  /**
   * The documented response an answer falls under: its status when the operation lists it, else
   * `default` when there is one (OpenAPI: "default" covers every status not declared), else none.
   */
  responseKeyFor(operationId: string, status: number): ResponseKey | undefined
  /**
   * Every problem of a raw answer: no 5xx but listOrders' 501, a 2xx the spec declares (empty when
   * it declares no content), JSON, the body against its schema, Error bodies with documented codes.
   */
  check(
    operationId: string | undefined,
    answer: { status: number; contentType: string | undefined; body: Buffer | string },
    isHead?: boolean,
  ): string[]
}

/** The contract of one spec file: the Animal Store API (default) or the control API. */
export async function loadContract(file: URL = SPEC_FILE): Promise<Contract> {
  const spec = await loadSpecFile(file)
  const resolved = (await dereference(fileURLToPath(file), readSpecDocument(file), {
    resolve: { external: true },
  })) as Record<string, any>
  const ajv = createAjv()
  const validateError = ajv.compile((await loadSpec()).schemas['Error'] ?? {})
  // Every documented response by its key; one without content maps to undefined.
  const responses = new Map<string, ValidateFunction | undefined>()
  const documented: ResponseKey[] = []
  // The text media types a response documents besides JSON (the coverage report's text/markdown).
  const textTypes = new Map<string, string[]>()
  for (const { operation } of operationsOf(resolved)) {
    for (const [key, response] of Object.entries<Record<string, any>>(operation.responses ?? {})) {
      const schema = response['content']?.['application/json']?.schema
      documented.push({ operationId: operation.operationId, response: key })
      responses.set(`${operation.operationId} ${key}`, schema ? ajv.compile(schema) : undefined)
      const texts = Object.keys(response['content'] ?? {}).filter((type) => type.startsWith('text/'))
      if (texts.length > 0) textTypes.set(`${operation.operationId} ${key}`, texts)
    }
  }

  return {
    spec,
    documented,
    responseKeyFor: (operationId, status) =>
      documented.find((key) => key.operationId === operationId && key.response === String(status)) ??
      documented.find((key) => key.operationId === operationId && key.response === 'default'),

    check(operationId, { status, contentType, body }, isHead = false) {
      const problems: string[] = []
      const success = status >= 200 && status < 300
      if (status >= 500 && !(status === 501 && operationId === 'listOrders')) problems.push(`a ${status} answer`)
      // A success must be declared as such: `default` does not stand for one.
      const declared = success ? `${operationId} ${status}` : undefined
      if (declared !== undefined) {
        if (!operationId || !responses.has(declared))
          problems.push(`${status} is not a success the spec declares for ${operationId}`)
        else if (responses.get(declared) === undefined) {
          if (body.length > 0)
            problems.push(`${status} declares no content, got ${JSON.stringify(body.toString().slice(0, 200))}`)
          return problems
        }
      }
      // A documented text answer is not JSON: its media type is all there is to check.
      const text = declared === undefined ? undefined : textTypes.get(declared)
      if (text?.some((type) => contentType === type || contentType?.startsWith(`${type};`))) return problems
      if (!/^application\/json(;|$)/.test(contentType ?? ''))
        problems.push(`Content-Type is ${JSON.stringify(contentType)}, not application/json`)
      if (isHead) return problems
      let json: unknown
      try {
        json = JSON.parse(body.toString())
      } catch {
        problems.push(`the body is not JSON: ${JSON.stringify(body.toString().slice(0, 200))}`)
        return problems
      }
      if (declared !== undefined) {
        const validate = responses.get(declared)
        if (validate && !validate(json))
          problems.push(`the ${status} body breaks the spec: ${ajv.errorsText(validate.errors)}`)
      } else if (!validateError(json)) {
        problems.push(`the Error body breaks the spec: ${ajv.errorsText(validateError.errors)}`)
      } else {
        const error = json as { status: number; code: string }
        if (error.status !== status)
          problems.push(`Error.status ${error.status} differs from the HTTP status ${status}`)
        if (!ERROR_CODES.has(error.code))
          problems.push(`Error.code ${JSON.stringify(error.code)} is not a documented code`)
      }
      return problems
    },
  }
}
