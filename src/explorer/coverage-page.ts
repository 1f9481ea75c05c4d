// GET /docs/coverage: the coverage report as a page, operations down, documented responses across.
import { countsNote, exercisedNote, responseColumns } from '../journal/coverage-summary.js'
import type { components } from '../contract/admin-types.js'
import { escapeHtml, htmlPage } from './browser-side.js'

export type CoverageReport = components['schemas']['CoverageReport']

/**
 * `named`: the reader presented the admin token. Without it the page names no namespace, and
 * leaves out the Error messages, which may quote one (a bad X-Sandbox-Namespace).
 */
export function coveragePage(report: CoverageReport, named: boolean): string {
  const columns = responseColumns(report)
  const { summary } = report
  const scope = report.namespace === null ? 'every namespace' : `namespace ${report.namespace}`
  const rows = report.operations
    .map((op) => {
      const marks = [op.deprecated ? 'deprecated' : '', op.stability === 'stable' ? '' : op.stability].filter(Boolean)
      const cells = columns
        .map((label) => {
          const response = op.responses.find((r) => r.label === label)
          if (response === undefined) return '<td class="none"></td>'
          if (response.exercised)
            return `<td class="yes" title="exercised">✔ ${response.calls}${response.forced > 0 ? ` (${response.forced} forced)` : ''}</td>`
          return response.reachable
            ? '<td class="no" title="never exercised">✘</td>'
            : '<td class="none" title="never exercised; caused only by malformed HTTP or JSON">–</td>'
        })
        .join('')
      const other = [
        ...op.undocumented.map((u) => `${u.status}${u.code ? ` ${u.code}` : ''} ×${u.calls}`),
        ...(op.unanswered > 0 ? [`no answer ×${op.unanswered}`] : []),
      ].join(', ')
      return `<tr><th scope="row"><code>${escapeHtml(op.operationId)}</code> ${escapeHtml(`${op.method} ${op.path}`)}${marks.length > 0 ? ` <em>(${escapeHtml(marks.join(', '))})</em>` : ''}</th><td>${op.calls}</td>${cells}<td>${escapeHtml(other)}</td></tr>`
    })
    .join('\n')
  const parameters = report.operations.flatMap((op) =>
    op.parameters.map(
      (p) =>
        `<li><code>${escapeHtml(op.operationId)}</code> <code>${escapeHtml(p.name)}</code>: ${p.values
          .map((v) => `${escapeHtml(v.label)} ${v.calls > 0 ? `✔ ${v.calls}` : '✘'}`)
          .join(
            ', ',
          )}${p.others.length > 0 ? `; also sent: ${p.others.map((o) => `<code>${escapeHtml(o.value)}</code> ×${o.calls}`).join(', ')}` : ''}</li>`,
    ),
  )
  const list = (title: string, items: string[]): string =>
    items.length === 0 ? '' : `<h2>${title}</h2>\n<ul>\n${items.join('\n')}\n</ul>`
  return htmlPage(
    'Animal Store sandbox · coverage',
    `<main class="sandbox">
<h1>Coverage: ${escapeHtml(scope)}</h1>
<p><strong>${escapeHtml(exercisedNote(summary))}</strong>, over ${summary.calls} calls (${summary.unmatched} unmatched, ${summary.invalid} invalid)${escapeHtml(countsNote(summary))}. Generated ${escapeHtml(report.generatedAt)} from the counts of every call; with the admin token, <code>?namespace=&lt;name&gt;</code> shows one namespace${named ? '' : ', and the Error messages are shown'}. As JSON or Markdown: <code>GET /__admin/coverage</code>. <a href="/docs">API explorer</a></p>
<table>
<thead><tr><th>operation</th><th>calls</th>${columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}<th>other answers</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<p>✔ exercised (calls; forced: by a fault or <code>Prefer</code>), ✘ documented and never exercised, – never exercised and caused only by malformed HTTP or JSON, grey: not documented.</p>
${list('Query parameters', parameters)}
${list(
  'Deprecated operations called',
  report.deprecatedCalls.map(
    (c) =>
      `<li><code>${escapeHtml(c.operationId)}</code> ${escapeHtml(`${c.method} ${c.path}`)}: ${c.calls} calls${c.sunset ? `; removed on <strong>${escapeHtml(c.sunset.slice(0, 10))}</strong>` : ''}${c.replacement ? `; use <code>${escapeHtml(c.replacement)}</code> instead` : ''}</li>`,
  ),
)}
${list(
  'Experimental or beta operations called',
  report.unstableCalls.map(
    (c) => `<li><code>${escapeHtml(c.operationId)}</code> (${escapeHtml(c.stability)}): ${c.calls} calls</li>`,
  ),
)}
${list(
  'Unmatched requests',
  report.unmatched.requests.map(
    (r) => `<li>${escapeHtml(`${r.method} ${r.path} → ${r.status ?? 'no answer'}`)} ×${r.calls}</li>`,
  ),
)}
${list(
  'Invalid requests',
  report.invalid.requests.map(
    (r) =>
      `<li>#${r.id} <code>${escapeHtml(r.operationId)}</code> ${escapeHtml(`${r.method} ${r.path} → ${r.status} ${r.code}${named ? `: ${r.message}` : ''}`)}</li>`,
  ),
)}
</main>`,
  )
}
