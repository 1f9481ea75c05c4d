// The control API's verification of a test's calls: verify, the wait for requests
// (await-requests.ts), the stray calls (stray-calls.ts) and the end of a test. A new operation of
// this kind goes here, and needs no other list.
import type { ApiSpec } from '../contract/types.js'
import { waitFor } from './await-requests.js'
import {
  invalidBody,
  ok,
  operationIds,
  unknownNamespace,
  type ControlContext,
  type ControlOperations,
} from '../control/control-operation.js'
import type { Namespace } from '../namespaces/namespaces.js'
import { strayCalls, type StrayCall } from './stray-calls.js'
import { testEndsOn, tracesOf } from '../journal/test-ends.js'
import { logicalCalls } from '../journal/logical-calls.js'
import { UNMATCHED } from '../journal/request-record.js'
import { expectationProblem, verify, verifyJournal, type Expectation, type VerifyResult } from '../journal/verify.js'

/** What verify and a wait are asked besides the expectations. */
interface Options {
  readonly strict?: boolean | undefined
  readonly noOtherCalls?: boolean | undefined
  readonly logicalCalls?: boolean | undefined
}

export const verificationHandlers: ControlOperations = {
  async verify({ query: { traceId }, body }, context) {
    checkExpectations(body.expectations, context.apiSpec)
    return ok(await verifyWithStrays(traceId, body.expectations, body, context))
  },

  async awaitRequests({ query: { traceId }, body = {} }, context) {
    const { expectations = [], timeoutMs = 10_000, quietMs } = body
    checkExpectations(expectations, context.apiSpec)
    const { namespace, namespaces, exchange } = context
    const now = (): VerifyResult => verifyNow(namespace, traceId, expectations, body)
    const wait = { namespace, namespaces, exchange, traceId, expectations, timeoutMs, quietMs, verifyNow: now }
    const waited = await waitFor(wait)
    if (body.noOtherCalls !== true) return ok(waited)
    const { endedBy, waitedMs } = waited
    return ok({ ...(await verifyWithStrays(traceId, expectations, body, context)), endedBy, waitedMs })
  },

  async listStrayRequests({ query: { test } }, { namespaces, namespaceFromTrace }) {
    const strays = await strayCalls(namespaces, namespaceFromTrace === true, test)
    return ok({ count: strays.length, strays, message: strayMessage(strays, test) })
  },

  async endTest({ path: { name } }, { namespaces, exchange }) {
    const namespace = await namespaces.existing(name, exchange.came)
    if (namespace === undefined) throw unknownNamespace(name)
    await (await namespaces.hold(namespace, undefined, exchange.came))?.release() // the traces other replicas journaled too
    const { at } = testEndsOn(namespaces.journals).end(name, tracesOf(namespace.journal), namespace.journal.lastId)
    return ok({ namespace: name, endedAt: new Date(at).toISOString() })
  },
}

/** Verify's answer now; `exclude` leaves out entries, which the counts of every call cannot. */
function verifyNow(
  namespace: Namespace,
  traceId: string | undefined,
  expectations: readonly Expectation[],
  { strict = false, noOtherCalls = false, logicalCalls: logical = false }: Options,
  exclude: ReadonlySet<number> = new Set(),
): VerifyResult {
  const strictly = strict || noOtherCalls
  if (!logical && exclude.size === 0) return verifyJournal(namespace, traceId, expectations, strictly)
  // The counts of every call would count attempts, or the entries left out: calls are the entries kept.
  const { journal } = namespace
  const entries = journal.find({ traceId }).filter((entry) => !exclude.has(entry.id))
  const calls = logical ? logicalCalls(entries) : entries
  return verify(namespace.name, calls, expectations, strictly, { journalDropped: journal.tally.journalDropped })
}

/**
 * With `noOtherCalls`: strict, the stray calls of the namespace's test fail the verification
 * wherever they landed, and those of other tests that landed here are theirs, not unexpected here.
 */
async function verifyWithStrays(
  traceId: string | undefined,
  expectations: readonly Expectation[],
  options: Options,
  { namespace, namespaces, namespaceFromTrace }: ControlContext,
): Promise<VerifyResult> {
  if (options.noOtherCalls !== true) return verifyNow(namespace, traceId, expectations, options)
  const strays = await strayCalls(namespaces, namespaceFromTrace === true)
  const own = strays.filter((stray) => stray.test === namespace.name)
  const others = strays.filter((stray) => stray.namespace === namespace.name && stray.test !== namespace.name)
  const result = verifyNow(namespace, traceId, expectations, options, new Set(others.map((stray) => stray.entry.id)))
  if (own.length === 0) return { ...result, strays: own }
  const lines = own.map((stray) => `- stray call (no other calls): ${describe(stray)}`)
  const failures = result.passed ? [] : result.message.split('\n').slice(1)
  return { ...result, passed: false, strays: own, message: `failed:\n${[...failures, ...lines].join('\n')}` }
}

function describe({ entry, namespace, reason }: StrayCall): string {
  const where = { 'after-end': 'after the test ended', 'other-test': 'with its trace', 'no-test': 'with no test' }[
    reason
  ]
  return `#${entry.id} ${entry.method} ${entry.path} → ${entry.status ?? 'no answer'} (${entry.operationId}) in namespace ${namespace}, ${where}`
}

/** e.g. "stray calls (test t1):\n- after-end: createPet (POST /v1/pets) answered 201, in namespace t1, trace 4bf9…". */
function strayMessage(strays: readonly StrayCall[], test: string | undefined): string {
  if (strays.length === 0) return `no stray calls (${test === undefined ? 'every test' : `test ${test}`})`
  const tests = [...new Set(strays.map((stray) => stray.test ?? 'none'))].sort()
  const lines = strays.map(({ reason, entry, namespace, traceId }) => {
    const answer = entry.status === null ? 'had no answer' : `answered ${entry.status}`
    const trace = traceId === undefined ? '' : `, trace ${traceId}`
    return `- ${reason}: ${entry.operationId} (${entry.method} ${entry.path}) ${answer}, in namespace ${namespace}${trace}`
  })
  return [`stray calls (test ${tests.join(', ')}):`, ...lines].join('\n')
}

function checkExpectations(expectations: readonly Expectation[], spec: ApiSpec): void {
  const problem = expectationProblem(expectations, [...operationIds(spec), UNMATCHED])
  if (problem !== undefined) throw invalidBody(problem)
}
