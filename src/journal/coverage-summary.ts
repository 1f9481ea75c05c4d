// The coverage report's table columns and summary notes, which the Markdown report and the HTML
// page both show, and its message on the deprecated calls, which the modules' assertions raise.
import type { components } from '../contract/admin-types.js'

type CoverageReport = components['schemas']['CoverageReport']

/** The columns of the operations × responses table: every documented response label, by status. */
export function responseColumns(report: CoverageReport): string[] {
  const labels = new Map<string, string>()
  for (const op of report.operations) for (const r of op.responses) labels.set(r.label, r.status)
  const rank = (status: string): number => (status === 'default' ? 1000 : Number(status))
  return [...labels].sort(([, a], [, b]) => rank(a) - rank(b)).map(([label]) => label)
}

/** e.g. "7 of 9 reachable documented responses exercised (and 1 of 2 only malformed HTTP or JSON causes)". */
export function exercisedNote(summary: CoverageReport['summary']): string {
  const unreachable = summary.responses - summary.reachable
  const exercised = summary.exercised - summary.reachableExercised
  const apart = unreachable > 0 ? ` (and ${exercised} of ${unreachable} only malformed HTTP or JSON causes)` : ''
  return `${summary.reachableExercised} of ${summary.reachable} reachable documented responses exercised${apart}`
}

/** What the counts outlived, when anything: entries the journals dropped, namespaces deleted or evicted. */
export function countsNote(summary: CoverageReport['summary']): string {
  const notes = [
    summary.journalDropped > 0 ? `${summary.journalDropped} entries the journal dropped (JOURNAL_SIZE)` : '',
    summary.namespacesDeleted > 0 ? `${summary.namespacesDeleted} namespaces deleted` : '',
    summary.namespacesEvicted > 0 ? `${summary.namespacesEvicted} namespaces evicted (MAX_NAMESPACES)` : '',
  ].filter(Boolean)
  return notes.length > 0 ? `; counted all the same: ${notes.join(', ')}` : ''
}

/** The calls of deprecated and of unstable operations, in the words an assertion of none raises. */
export function callsMessages(
  scope: string,
  deprecated: CoverageReport['deprecatedCalls'],
  unstable: CoverageReport['unstableCalls'],
): Pick<CoverageReport, 'deprecatedCallsMessage' | 'unstableCallsMessage'> {
  return {
    deprecatedCallsMessage: deprecatedCallsMessage(scope, deprecated),
    unstableCallsMessage: unstableCallsMessage(scope, unstable),
  }
}

/** e.g. "deprecated operations called (namespace t1):\n- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead". */
function deprecatedCallsMessage(scope: string, called: CoverageReport['deprecatedCalls']): string {
  if (called.length === 0) return `no deprecated operations called (${scope})`
  const lines = called.map(
    ({ operationId, method, path, calls, sunset, replacement }) =>
      `- ${operationId} (${method} ${path}): ${calls} call${calls === 1 ? '' : 's'}` +
      (sunset === null ? '' : `, sunset ${sunset.slice(0, 10)}`) +
      (replacement === null ? '' : `, use ${replacement} instead`),
  )
  return [`deprecated operations called (${scope}):`, ...lines].join('\n')
}

/** e.g. "operations below stable called (namespace t1):\n- createPet (POST /v1/pets, x-stability beta): 2 calls". */
function unstableCallsMessage(scope: string, called: CoverageReport['unstableCalls']): string {
  if (called.length === 0) return `no operations below stable called (${scope})`
  const lines = called.map(
    ({ operationId, method, path, stability, calls }) =>
      `- ${operationId} (${method} ${path}, x-stability ${stability}): ${calls} call${calls === 1 ? '' : 's'}`,
  )
  return [`operations below stable called (${scope}):`, ...lines].join('\n')
}
