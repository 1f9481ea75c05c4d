// The coverage guard: every (operation, status) the spec documents must be exercised by a case,
// so a response added to the spec cannot go untested.
import { operationsOf } from '../src/contract/load.js'
import type { OperationId } from './cases.js'

/** An operation and one of its documented response keys: a status such as "201", or "default". */
export interface ResponseKey {
  readonly operationId: string
  readonly response: string
}

/** Every (operationId, response key) the OpenAPI document declares. */
export function documentedResponses(document: Record<string, any>): ResponseKey[] {
  const keys: ResponseKey[] = []
  for (const { operation } of operationsOf(document)) {
    for (const response of Object.keys(operation.responses ?? {}))
      keys.push({ operationId: operation.operationId, response })
  }
  return keys
}

/**
 * The documented response an answer falls under: its status when the operation lists it, else
 * `default` when there is one (OpenAPI: "default" covers every status not declared), else none.
 */
export function responseKeyFor(
  document: Record<string, any>,
  operationId: OperationId | string,
  status: number,
): ResponseKey | undefined {
  const declared = documentedResponses(document).filter((key) => key.operationId === operationId)
  const exact = declared.find((key) => key.response === String(status))
  if (exact) return exact
  // Range keys such as 4XX are allowed by OpenAPI too.
  const range = declared.find((key) => key.response.toUpperCase() === `${String(status)[0]}XX`)
  return range ?? declared.find((key) => key.response === 'default')
}

/** The documented responses that no exercised answer fell under. */
export function missingResponses(documented: readonly ResponseKey[], exercised: readonly ResponseKey[]): ResponseKey[] {
  const seen = new Set(exercised.map(keyOf))
  return documented.filter((key) => !seen.has(keyOf(key)))
}

export function keyOf({ operationId, response }: ResponseKey): string {
  return `${operationId} ${response}`
}
