// The coverage report: what a suite's requests, as the journal holds them, covered of the
// contract. For each operation of the spec: its calls, each documented response exercised or not
// (a 400 once per code the sandbox answers for it), the query values and bounds sent; then the
// calls to deprecated and to experimental or beta operations, and the unmatched and invalid
// requests. Nothing is recorded for it: it is computed from the journal when asked for.
import { ERRORS, templateForStatus } from '../http/errors.js'
import { badRequestCodes } from '../pipeline/validate.js'
import type { components } from '../spec/admin-types.js'
import type { ApiSpec, Operation, ParameterSpec } from '../spec/types.js'
import { DEFAULT_NAMESPACE, type Namespace, type Namespaces } from './namespaces.js'
import { UNMATCHED, type JournalEntry } from './request-journal.js'

type Schemas = components['schemas']
export type CoverageReport = Schemas['CoverageReport']
export type OperationCoverage = Schemas['OperationCoverage']
type ResponseCoverage = Schemas['ResponseCoverage']
type ParameterCoverage = Schemas['ParameterCoverage']

/** The code of a 400 forced by `Prefer: code=400` or a fault: it exercises a row of its own. */
const FORCED_BAD_REQUEST = templateForStatus(400).code
/** Answers that say the request broke the spec (validation, the body's type or size). */
const INVALID_STATUSES: ReadonlySet<number> = new Set([400, 413, 415])

/** The report of one namespace, or of every namespace in memory (the default one first) when none is given. */
export function coverageOf(spec: ApiSpec, namespaces: Namespaces, namespace?: Namespace): CoverageReport {
  const read =
    namespace === undefined
      ? namespaces
          .list()
          .sort(
            (a, b) =>
              Number(b.name === DEFAULT_NAMESPACE) - Number(a.name === DEFAULT_NAMESPACE) ||
              a.name.localeCompare(b.name),
          )
      : [namespace]
  return coverageReport(
    spec,
    read.map((ns) => ({
      namespace: ns.name,
      entries: ns.journal.find(),
      unauthenticatedDropped: ns.journal.unauthenticatedDropped,
    })),
    namespace?.name ?? null,
  )
}

/** The report over the journals read: one namespace's, or every namespace's (`namespace` null). */
export function coverageReport(
  spec: ApiSpec,
  journals: ReadonlyArray<{
    readonly namespace: string
    readonly entries: readonly JournalEntry[]
    /** Requests without a valid API key the journal no longer holds. */
    readonly unauthenticatedDropped: number
  }>,
  namespace: string | null,
  now: Date = new Date(),
): CoverageReport {
  const entries = journals.flatMap((journal) => journal.entries)
  const byOperation = new Map<string, JournalEntry[]>()
  for (const entry of entries)
    byOperation.set(entry.operationId, [...(byOperation.get(entry.operationId) ?? []), entry])
  const operations = spec.operations.map((op) => operationCoverage(op, byOperation.get(op.operationId) ?? [], spec))
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
  const unmatched = tally(
    byOperation.get(UNMATCHED) ?? [],
    (e) => `${e.method} ${e.path} ${e.status}`,
    (e, calls) => ({ method: e.method, path: e.path, status: e.status, calls }),
  )
  const invalid = entries
    .filter(
      (e) => e.operationId !== UNMATCHED && e.fault === null && e.error !== null && INVALID_STATUSES.has(e.status ?? 0),
    )
    .map((e) => ({
      id: e.id,
      namespace: e.namespace,
      operationId: e.operationId,
      method: e.method,
      path: e.path,
      status: e.status as number,
      code: e.error?.code as string,
      message: e.error?.message as string,
    }))
  const responses = operations.flatMap((op) => op.responses)
  return {
    reportVersion: 1,
    generatedAt: now.toISOString(),
    namespace,
    namespaces: journals.map((journal) => journal.namespace),
    summary: {
      calls: entries.length,
      operations: operations.length,
      responses: responses.length,
      exercised: responses.filter((response) => response.exercised).length,
      unmatched: unmatched.reduce((sum, request) => sum + request.calls, 0),
      invalid: invalid.length,
      deprecatedCalls: deprecatedCalls.reduce((sum, call) => sum + call.calls, 0),
      unstableCalls: unstableCalls.reduce((sum, call) => sum + call.calls, 0),
      unauthenticatedDropped: journals.reduce((sum, journal) => sum + journal.unauthenticatedDropped, 0),
    },
    operations,
    deprecatedCalls,
    unstableCalls,
    unmatched: { count: unmatched.length, requests: unmatched },
    invalid: { count: invalid.length, requests: invalid },
  }
}

function operationCoverage(op: Operation, calls: readonly JournalEntry[], spec: ApiSpec): OperationCoverage {
  const rows = documentedResponses(op)
  const listed = new Set(op.responses)
  const responses: ResponseCoverage[] = rows.map((row) => ({ ...row, exercised: false, calls: 0, forced: 0 }))
  const other: JournalEntry[] = []
  let unanswered = 0
  for (const entry of calls) {
    if (entry.status === null) {
      unanswered++
      continue
    }
    const row = responses.find((response) => answers(response, entry, listed))
    if (row === undefined) {
      other.push(entry)
      continue
    }
    row.exercised = true
    row.calls++
    if (entry.fault !== null) row.forced++
  }
  return {
    operationId: op.operationId,
    method: op.method,
    path: spec.basePath + op.path,
    stability: op.stability,
    deprecated: op.deprecated,
    sunset: op.sunset?.toISOString() ?? null,
    replacement: op.replacement === undefined ? null : spec.basePath + op.replacement,
    calls: calls.length,
    responses,
    undocumented: tally(
      other,
      (e) => `${e.status} ${e.error?.code}`,
      (e, n) => ({ status: e.status as number, code: e.error?.code ?? null, calls: n }),
    ),
    unanswered,
    parameters: op.parameters.filter((p) => p.in === 'query').map((p) => parameterCoverage(p, calls)),
  }
}

/** Each documented response of `op`, in the spec's order; a 400 once per code the sandbox answers for it. */
export function documentedResponses(op: Operation): Array<{ status: string; code: string | null; label: string }> {
  return op.responses.flatMap((status): Array<{ status: string; code: string | null; label: string }> => {
    if (status !== '400') return [{ status, code: null, label: status }]
    const codes = [...badRequestCodes(op), FORCED_BAD_REQUEST]
    return codes.map((code) => ({ status, code, label: `${status} ${code}` }))
  })
}

/** Whether `entry` is an answer of the documented response `row`. */
function answers(row: ResponseCoverage, entry: JournalEntry, listed: ReadonlySet<string>): boolean {
  // A MIN_STABILITY refusal is the sandbox's setting speaking, not the operation: it exercises nothing.
  if (entry.error?.code === ERRORS.unstableOperation.code) return false
  const status = String(entry.status)
  // `default` stands for every status the operation does not list (listOrders' 501).
  if (row.status === 'default') return !listed.has(status)
  if (row.status !== status) return false
  if (row.code === null) return true
  // A forced 400 carries the code of its template (or injected_fault): it exercises the forced row.
  const code = entry.fault === null ? entry.error?.code : FORCED_BAD_REQUEST
  return code === row.code
}

/** The values of a query parameter worth trying (enum values, bounds, the default) and the others sent. */
function parameterCoverage(parameter: ParameterSpec, calls: readonly JournalEntry[]): ParameterCoverage {
  const { schema } = parameter
  const values: ParameterCoverage['values'] = []
  for (const value of (schema['enum'] as unknown[] | undefined) ?? [])
    values.push({ value: String(value), kind: 'enum', label: String(value), calls: 0 })
  for (const kind of ['minimum', 'maximum'] as const)
    if (typeof schema[kind] === 'number') {
      const value = String(schema[kind])
      values.push({ value, kind, label: `${value} (${kind})`, calls: 0 })
    }
  values.push(
    schema['default'] === undefined
      ? { value: null, kind: 'omitted', label: 'omitted', calls: 0 }
      : { value: null, kind: 'default', label: `default (${String(schema['default'])})`, calls: 0 },
  )
  const others = new Map<string, number>()
  for (const entry of calls) {
    const sent = entry.query[parameter.name]
    for (const value of sent === undefined ? [null] : [sent].flat()) {
      const known = values.find((v) => v.value === value)
      if (known) known.calls++
      else others.set(value as string, (others.get(value as string) ?? 0) + 1)
    }
  }
  return { name: parameter.name, values, others: [...others].map(([value, n]) => ({ value, calls: n })) }
}

/** Entries counted by `key`, in the order each key was first seen. */
function tally<T>(
  entries: readonly JournalEntry[],
  key: (entry: JournalEntry) => string,
  make: (first: JournalEntry, calls: number) => T,
): T[] {
  const counted = new Map<string, { first: JournalEntry; calls: number }>()
  for (const entry of entries) {
    const k = key(entry)
    const seen = counted.get(k)
    if (seen) seen.calls++
    else counted.set(k, { first: entry, calls: 1 })
  }
  return [...counted.values()].map(({ first, calls }) => make(first, calls))
}

/** The columns of the operations × responses table: every documented response label, by status. */
export function responseColumns(report: CoverageReport): string[] {
  const labels = new Map<string, string>()
  for (const op of report.operations) for (const r of op.responses) labels.set(r.label, r.status)
  const rank = (status: string): number => (status === 'default' ? 1000 : Number(status))
  return [...labels].sort(([, a], [, b]) => rank(a) - rank(b)).map(([label]) => label)
}

/** The report as Markdown: the operations × responses table first, then what needs a look. */
export function coverageMarkdown(report: CoverageReport): string {
  const columns = responseColumns(report)
  const { summary } = report
  const scope = report.namespace === null ? 'every namespace' : `namespace \`${report.namespace}\``
  const lines = [
    `# API coverage: ${scope}`,
    '',
    `${summary.exercised} of ${summary.responses} documented responses exercised, over ${summary.calls} calls ` +
      `(${summary.unmatched} unmatched, ${summary.invalid} invalid)${droppedNote(summary)}. Generated ${report.generatedAt}.`,
    '',
    `| operation | calls | ${columns.join(' | ')} | other answers |`,
    `| --- | --- | ${columns.map(() => '---').join(' | ')} | --- |`,
  ]
  for (const op of report.operations) {
    const cells = columns.map((label) => {
      const response = op.responses.find((r) => r.label === label)
      if (response === undefined) return ''
      return response.exercised ? `✅ ${response.calls}` : '❌'
    })
    const other = [
      ...op.undocumented.map((u) => `${u.status}${u.code ? ` ${u.code}` : ''} ×${u.calls}`),
      ...(op.unanswered > 0 ? [`no answer ×${op.unanswered}`] : []),
    ]
    lines.push(`| ${operationTitle(op)} | ${op.calls} | ${cells.join(' | ')} | ${other.join(', ')} |`)
  }
  lines.push('', '✅ exercised (calls), ❌ documented and never exercised; an empty cell is not documented.')

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

/** The requests without a key that are not counted, when there are any. */
function droppedNote(summary: CoverageReport['summary']): string {
  const dropped = summary.unauthenticatedDropped
  return dropped > 0 ? `; ${dropped} more without a valid API key, not counted (only the latest are kept)` : ''
}
