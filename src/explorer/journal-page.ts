// GET /docs/journal: the latest requests of a namespace (or of one trace in it), followed live.
// The page holds no test data: its script reads the journal from the control API with the admin
// token the reader enters (docs/explorer.md#the-journal-page), so the page itself needs none.
import type { ApiSpec } from '../contract/types.js'
import { htmlPage } from './browser-side.js'

/** Rows the page keeps (newest first), entries per read, and the pause between reads. */
const SHOWN = 500
const PAGE_SIZE = 200
const INTERVAL_MS = 1000

export function journalPage(spec: ApiSpec, requestsUrl: string): string {
  // JSON inside a script element: escaping "<" keeps "</script>" from ending it early.
  const config = JSON.stringify({
    requests: requestsUrl,
    deprecated: spec.operations.filter((op) => op.deprecated).map((op) => op.operationId),
    shown: SHOWN,
    pageSize: PAGE_SIZE,
    intervalMs: INTERVAL_MS,
  }).replace(/</g, '\\u003c')
  return htmlPage(
    'Animal Store sandbox · journal',
    `<main class="sandbox">
<h1>Journal: <span id="scope"></span></h1>
<p>The latest requests, newest first, as they arrive. <code>?namespace=&lt;name&gt;</code> picks the namespace, <code>&amp;traceId=&lt;32 hex&gt;</code> one trace in it. As JSON: <code>GET ${requestsUrl}</code>. <a href="/docs">API explorer</a></p>
<form id="token-form"><label>Admin token <input id="token" type="password" autocomplete="off" required></label> <button type="submit">Follow</button> <small>kept in this tab only</small></form>
<p id="state" role="status"></p>
<table>
<thead><tr><th>time</th><th>method</th><th>path</th><th>status</th><th>operationId</th><th>marks</th></tr></thead>
<tbody id="rows"></tbody>
</table>
</main>
<script id="journal-config" type="application/json">${config}</script>
<script src="/docs/journal.js"></script>`,
    {
      style: `
  .sandbox tr.deprecated td.marked { background: #fff4e5; }
  .sandbox tr.fault td.marked { background: #ffebe9; }
`,
    },
  )
}
