// The coverage report: what a suite's requests covered of the contract, per operation and
// documented response (a 400 once per code). Made from the counts (coverage-tally.ts), never from
// the journal's entries, which are bounded.
import { ERRORS, templateForStatus } from '../http/errors.js'
import { badRequestCodes } from '../pipeline/validate.js'
import type { components } from '../contract/admin-types.js'
import type { ApiSpec, Operation, ParameterSpec } from '../contract/types.js'
import { callsMessages, countsNote, exercisedNote, responseColumns } from './coverage-summary.js'
import { CoverageTally, type AnswerTally, type OperationTally, type ParameterTally } from './coverage-tally.js'
import type { Journaled, JournaledNamespaces } from './journaled.js'

type Schemas = components['schemas']
export type CoverageReport = Schemas['CoverageReport']
export type OperationCoverage = Schemas['OperationCoverage']
type ResponseCoverage = Schemas['ResponseCoverage']
type ParameterCoverage = Schemas['ParameterCoverage']

/** The code of a 400 forced by `Prefer: code=400` or a fault: it exercises a row of its own. */
const FORCED_BAD_REQUEST = templateForStatus(400).code

/**
 * The 400s only bytes that are not HTTP, or a body that is not JSON, cause: a client whose HTTP
 * stack and JSON serializer work never meets them, so no end-of-suite check asks for them.
 * (`bad_request` otherwise comes only from `Prefer` or a fault.)
 */
const MALFORMED_ONLY: ReadonlySet<string> = new Set([ERRORS.malformedJson.code, ERRORS.badRequest.code])

/**
 * One namespace's report, or without one the run's: every namespace in memory (the default first)
 * and the calls of those retired. With a trace id, only that trace's calls the journals keep.
 */
export function coverageOf(
  spec: ApiSpec,
  namespaces: JournaledNamespaces,
  namespace?: Journaled,
  traceId?: string,
): CoverageReport {
  const tallyOf = (ns: Journaled): CoverageTally =>
    traceId === undefined ? ns.journal.tally : ns.journal.tallyOf({ traceId })
  const run = namespace === undefined
  const read = run
    ? namespaces
        .list()
        .sort(
          (a, b) =>
            Number(b.name === namespaces.default.name) - Number(a.name === namespaces.default.name) ||
            a.name.localeCompare(b.name),
        )
    : [namespace]
  const tally = run ? new CoverageTally() : tallyOf(namespace)
  if (run) {
    if (traceId === undefined) tally.absorb(namespaces.retired)
    for (const ns of read) tally.absorb(tallyOf(ns))
  }

  const scope = namespace === undefined ? 'every namespace' : `namespace ${namespace.name}`
  const operations = spec.operations.map((op) =>
    operationCoverage(op, tally.operations.get(op.operationId), spec, scope),
  )
  const deprecatedCalls = operations
    .filter((op) => op.deprecated && op.calls > 0)
    .map(({ operationId, method, path, calls, sunset, replacement }) => ({
      operationId,
      method,
      path,
      calls,
      sunset,
      replacement,
    }))
  const unstableCalls = operations
    .filter((op) => op.stability !== 'stable' && op.calls > 0)
    .map(({ operationId, method, path, stability, calls }) => ({ operationId, method, path, stability, calls }))
  const unmatched = [...tally.unmatched.values()].map((request) => ({ ...request }))
  const responses = operations.flatMap((op) => op.responses)
  const reachable = responses.filter((response) => response.reachable)
  const complete = operations.every((op) => op.complete)
  return {
    reportVersion: 1,
    generatedAt: new Date().toISOString(),
    namespace: namespace?.name ?? null,
    namespaces: read.map((ns) => ns.name),
    summary: {
      calls: tally.calls,
      operations: operations.length,
      responses: responses.length,
      exercised: responses.filter((response) => response.exercised).length,
      reachable: reachable.length,
      reachableExercised: reachable.filter((response) => response.exercised).length,
      unmatched: tally.unmatchedCalls,
      invalid: tally.invalidCalls,
      deprecatedCalls: deprecatedCalls.reduce((sum, call) => sum + call.calls, 0),
      unstableCalls: unstableCalls.reduce((sum, call) => sum + call.calls, 0),
      // Requests without a valid API key the journals no longer hold.
      unauthenticatedDropped: read.reduce((sum, ns) => sum + ns.journal.unauthenticatedDropped, 0),
      journalDropped: tally.journalDropped,
      namespacesDeleted: run ? namespaces.deleted : 0,
      namespacesEvicted: run ? namespaces.evicted : 0,
    },
    operations,
    deprecatedCalls,
    unstableCalls,
    ...callsMessages(scope, deprecatedCalls, unstableCalls),
    unmatched: { count: unmatched.length, requests: unmatched },
    invalid: { count: tally.invalidCalls, requests: [...tally.invalid] },
    complete,
    message: complete
      ? `every reachable documented response exercised (${scope}): ${reachable.length} of ${reachable.length}`
      : operations
          .filter((op) => !op.complete)
          .map((op) => op.message)
          .join('\n'),
  }
}

function operationCoverage(
  op: Operation,
  counted: OperationTally | undefined,
  spec: ApiSpec,
  scope: string,
): OperationCoverage {
  const rows = documentedResponses(op)
  const listed = new Set(op.responses)
  const responses: ResponseCoverage[] = rows.map((row) => ({ ...row, exercised: false, calls: 0, forced: 0 }))
  const undocumented = new Map<string, { status: number; code: string | null; calls: number }>()
  let unanswered = 0
  for (const answer of counted?.answers.values() ?? []) {
    if (answer.status === null) {
      unanswered += answer.calls
      continue
    }
    const row = responses.find((response) => answers(response, answer, listed))
    if (row === undefined) {
      const key = `${answer.status} ${answer.code}`
      const seen = undocumented.get(key)
      if (seen) seen.calls += answer.calls
      else undocumented.set(key, { status: answer.status, code: answer.code, calls: answer.calls })
      continue
    }
    row.exercised = true
    row.calls += answer.calls
    if (answer.forced) row.forced += answer.calls
  }
  const calls = counted?.calls ?? 0
  const path = spec.basePath + op.path
  const missing = responses.filter((response) => response.reachable && !response.exercised)
  return {
    operationId: op.operationId,
    method: op.method,
    path,
    stability: op.stability,
    deprecated: op.deprecated,
    sunset: op.sunset?.toISOString() ?? null,
    replacement: op.replacement === undefined ? null : spec.basePath + op.replacement,
    calls,
    responses,
    undocumented: [...undocumented.values()],
    unanswered,
    parameters: op.parameters
      .filter((p) => p.in === 'query')
      .map((p) => parameterCoverage(p, calls, counted?.parameters.get(p.name))),
    complete: missing.length === 0,
    // One line, so the lines of several operations read as one list.
    message:
      `${op.operationId} (${op.method} ${path}), ${scope}: ` +
      (missing.length === 0
        ? 'every reachable documented response exercised'
        : `never exercised ${missing.map((response) => response.label).join(', ')}`),
  }
}

type DocumentedResponse = Pick<ResponseCoverage, 'status' | 'code' | 'label' | 'reachable'>

/**
 * Each documented response of `op`, in the spec's order; a 400 once per code the sandbox answers
 * for it, `reachable` unless only malformed HTTP or JSON causes it.
 */
export function documentedResponses(op: Operation): DocumentedResponse[] {
  return op.responses.flatMap((status): DocumentedResponse[] => {
    if (status !== '400') return [{ status, code: null, label: status, reachable: true }]
    const codes = [...badRequestCodes(op), FORCED_BAD_REQUEST]
    return codes.map((code) => ({ status, code, label: `${status} ${code}`, reachable: !MALFORMED_ONLY.has(code) }))
  })
}

/** Whether the calls answered `answer` exercised the documented response `row`. */
function answers(row: ResponseCoverage, answer: AnswerTally, listed: ReadonlySet<string>): boolean {
  // A MIN_STABILITY refusal is the sandbox's setting speaking, not the operation: it exercises nothing.
  if (answer.code === ERRORS.unstableOperation.code) return false
  const status = String(answer.status)
  // `default` stands for every status the operation does not list (listOrders' 501).
  if (row.status === 'default') return !listed.has(status)
  if (row.status !== status) return false
  if (row.code === null) return true
  // A forced 400 carries the code of its template (or injected_fault): it exercises the forced row.
  const code = answer.forced ? FORCED_BAD_REQUEST : answer.code
  return code === row.code
}

/** The values of a query parameter worth trying (enum values, bounds, the default) and the others sent. */
function parameterCoverage(
  parameter: ParameterSpec,
  calls: number,
  sent: ParameterTally | undefined,
): ParameterCoverage {
  const { schema } = parameter
  const values: ParameterCoverage['values'] = []
  for (const value of (schema['enum'] as unknown[] | undefined) ?? [])
    values.push({ value: String(value), kind: 'enum', label: String(value), calls: 0 })
  for (const kind of ['minimum', 'maximum'] as const)
    if (typeof schema[kind] === 'number') {
      const value = String(schema[kind])
      values.push({ value, kind, label: `${value} (${kind})`, calls: 0 })
    }
  const omitted = schema['default'] === undefined
  const label = omitted ? 'omitted' : `default (${String(schema['default'])})`
  values.push({ value: null, kind: omitted ? 'omitted' : 'default', label, calls: calls - (sent?.calls ?? 0) })
  const others: Array<{ value: string; calls: number }> = []
  for (const [value, n] of sent?.values ?? []) {
    const known = values.find((v) => v.value === value)
    if (known) known.calls += n
    else others.push({ value, calls: n })
  }
  return { name: parameter.name, values, others }
}

/** The report as Markdown: the operations × responses table first, then what needs a look. */
export function coverageMarkdown(report: CoverageReport): string {
  const columns = responseColumns(report)
  const { summary } = report
  const scope = report.namespace === null ? 'every namespace' : `namespace \`${report.namespace}\``
  const lines = [
    `# API coverage: ${scope}`,
    '',
    `${exercisedNote(summary)}, over ${summary.calls} calls ` +
      `(${summary.unmatched} unmatched, ${summary.invalid} invalid)${countsNote(summary)}. Generated ${report.generatedAt}.`,
    '',
    `| operation | calls | ${columns.join(' | ')} | other answers |`,
    `| --- | --- | ${columns.map(() => '---').join(' | ')} | --- |`,
  ]
  for (const op of report.operations) {
    const cells = columns.map((label) => {
      const response = op.responses.find((r) => r.label === label)
      if (response === undefined) return ''
      if (response.exercised) return `✅ ${response.calls}`
      return response.reachable ? '❌' : '➖'
    })
    const other = [
      ...op.undocumented.map((u) => `${u.status}${u.code ? ` ${u.code}` : ''} ×${u.calls}`),
      ...(op.unanswered > 0 ? [`no answer ×${op.unanswered}`] : []),
    ]
    lines.push(`| ${operationTitle(op)} | ${op.calls} | ${cells.join(' | ')} | ${other.join(', ')} |`)
  }
  lines.push(
    '',
    '✅ exercised (calls), ❌ documented and never exercised, ➖ never exercised and caused only by malformed HTTP or JSON; ' +
      'an empty cell is not documented.',
  )

  const parameters = report.operations.flatMap((op) =>
    op.parameters.map(
      (p) =>
        `- \`${op.operationId}\` \`${p.name}\`: ${p.values.map((v) => `${v.label} ${v.calls > 0 ? `✅ ${v.calls}` : '❌'}`).join(', ')}` +
        (p.others.length > 0 ? `; also sent: ${p.others.map((o) => `\`${o.value}\` ×${o.calls}`).join(', ')}` : ''),
    ),
  )
  if (parameters.length > 0) lines.push('', '## Query parameters', '', ...parameters)

  if (report.deprecatedCalls.length > 0) {
    lines.push('', '## Deprecated operations called', '')
    for (const call of report.deprecatedCalls) {
      const sunset = call.sunset ? `; removed on ${call.sunset.slice(0, 10)}` : ''
      const instead = call.replacement ? `; use \`${call.replacement}\` instead` : ''
      lines.push(`- \`${call.operationId}\` (${call.method} ${call.path}): ${call.calls} calls${sunset}${instead}`)
    }
  }
  if (report.unstableCalls.length > 0) {
    lines.push('', '## Experimental or beta operations called', '')
    for (const call of report.unstableCalls)
      lines.push(`- \`${call.operationId}\` (${call.method} ${call.path}, ${call.stability}): ${call.calls} calls`)
  }
  if (report.unmatched.count > 0) {
    lines.push('', '## Unmatched requests', '')
    for (const r of report.unmatched.requests)
      lines.push(`- ${r.method} ${r.path} → ${r.status ?? 'no answer'} ×${r.calls}`)
  }
  if (report.invalid.count > 0) {
    lines.push('', '## Invalid requests', '')
    for (const r of report.invalid.requests)
      lines.push(`- #${r.id} \`${r.operationId}\` ${r.method} ${r.path} → ${r.status} ${r.code}: ${r.message}`)
  }
  return `${lines.join('\n')}\n`
}

function operationTitle(op: OperationCoverage): string {
  const marks = [op.deprecated ? 'deprecated' : undefined, op.stability === 'stable' ? undefined : op.stability]
  const marked = marks.filter(Boolean)
  return `\`${op.operationId}\` ${op.method} ${op.path}${marked.length > 0 ? ` (${marked.join(', ')})` : ''}`
}
