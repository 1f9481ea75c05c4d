// The verification room's handlers of the control API: verify, and the wait for requests
// (await-requests.ts). A new operation of this room goes here, and needs no other list.
import type { ApiSpec } from '../contract/types.js'
import { waitFor } from './await-requests.js'
import { invalidBody, ok, operationIds, type ControlOperations } from './control-operation.js'
import { UNMATCHED } from '../journal/request-record.js'
import { expectationProblem, verifyJournal, type Expectation, type VerifyResult } from '../journal/verify.js'

export const verificationHandlers: ControlOperations = {
  verify({ query: { traceId }, body: { expectations, strict = false } }, { namespace, apiSpec }) {
    checkExpectations(expectations, apiSpec)
    return ok(verifyJournal(namespace, traceId, expectations, strict))
  },

  async awaitRequests({ query: { traceId }, body = {} }, { namespace, namespaces, exchange, apiSpec }) {
    const { expectations = [], timeoutMs = 10_000, quietMs, strict = false } = body
    checkExpectations(expectations, apiSpec)
    const verifyNow = (): VerifyResult => verifyJournal(namespace, traceId, expectations, strict)
    return ok(await waitFor({ namespace, namespaces, exchange, traceId, expectations, timeoutMs, quietMs, verifyNow }))
  },
}

function checkExpectations(expectations: readonly Expectation[], spec: ApiSpec): void {
  const problem = expectationProblem(expectations, [...operationIds(spec), UNMATCHED])
  if (problem !== undefined) throw invalidBody(problem)
}
