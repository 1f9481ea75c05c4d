// `npm run lines`: the hand-written lines, in total and per capability. Hand-written is what git
// tracks, less lockfiles, YAML, Markdown, images, fixtures and what .gitattributes marks
// linguist-generated. A row counts its source and its tests alike. Rows match folder and base
// names anywhere in a path, so a file moved into a folder keeps its row; the first row that
// matches wins, and what none matches is "unassigned".
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

// [row, its budget in lines, the paths it holds]; a budget of 0: a capability added after the
// budget was set, which reports its own lines.
const ROWS: [string, number, RegExp][] = [
  ['waits and stray calls', 0, /await|stray|logical-calls|journal-waits/],
  ['bundle, replay, shrink', 0, /repro|bundle|ddmin|chaos|chance\./],
  // Before modules: the example service the trace tests drive.
  ['telemetry', 600, /telemetry|trace|baggage|metric|otel|prometheus|service-under-test/],
  ['modules', 4200, /^modules\/|^examples\/|node-module|modules-remote|consumers?\.test|vocabulary/],
  ['Helm', 450, /helm|kubeconform/],
  ['bench', 900, /(^|\/)bench\/|load-generators|soak|ceiling/],
  ['configuration', 270, /^(\.[^/]+|package\.json|tsconfig[^/]*\.json|eslint\.config\.js)$/],
  ['MCP', 650, /mcp/],
  ['Pact', 650, /(^|[/-])pact/],
  ['fidelity', 850, /fidelity|upstream|stand-in|record-replay|forwarding|compare/],
  ['TLS', 800, /tls/],
  ['PostgreSQL', 1400, /postgres|haproxy|replica|nemesis|cutting-proxy|(^|\/)shared\/|database|outages/],
  ['explorer', 650, /explorer|browser|screenshot|-page\.|pages\.ts/],
  ['journal, coverage, verify', 1700, /journal|coverage|verif|request-record|redact|secret|assertions|test-ends/],
  // A namespace's faults and clock live beside it, and count as control's.
  ['namespaces', 900, /^(?!.*(fault|clock|chance)).*(namespace|eviction|frozen-initial)/],
  [
    'data-file store',
    3100,
    /(^|\/)store\/|data-file|append-log|compaction|durable|group-commit|temp-file|case-folding/,
  ],
  ['control', 1500, /control|fault|clock|snapshot|operations-table/],
  [
    'build, image, release, CI',
    2000,
    /^\.ci\/|^\.github\/|docker|scripts\/(build|bundle|compile|release|ci-|fixtures|lines)|(^|\/)container\/|test\/docs\//,
  ],
  [
    'core API',
    4600,
    /(^|\/)(api|http|pipeline|contract|conformance|hardening|support)\/|scripts\/lib\/|(^|\/)(app|sandbox|index|logger|capability)\.ts$/,
  ],
  ['settings and start', 1000, /setting|(^|\/)(config|cli|paths)\.ts$|start|heap|healthcheck|embedding|unhandled/],
]
const SKIPPED = /(^|\/)(package-lock\.json|go\.sum)$|\.(ya?ml|md|png|jpe?g|gif|svg|ico)$|(^|\/)(fixtures|testdata)\//

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28 })
// `--rev <commit>` counts that commit instead of the working tree (e.g. main, to compare).
const rev = process.argv.includes('--rev') ? process.argv[process.argv.indexOf('--rev') + 1] : undefined
const read = (path: string): string => (rev ? git('show', `${rev}:${path}`) : readFileSync(path, 'utf8'))
// .gitattributes names generated files by their paths (a `*` matches within one folder, `**` across folders).
const generated = read('.gitattributes')
  .split('\n')
  .filter((line) => /\slinguist-generated\b/.test(line) && !line.startsWith('#'))
  .map((line) => {
    const escaped = (line.split(/\s/)[0] ?? '').replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    return new RegExp(`^${escaped.replaceAll('**', '\0').replaceAll('*', '[^/]*').replaceAll('\0', '.*')}$`)
  })
const files = (rev ? git('ls-tree', '-r', '-z', '--name-only', rev) : git('ls-files', '-z'))
  .split('\0')
  .filter((path) => path && !SKIPPED.test(path) && !generated.some((pattern) => pattern.test(path)))

const rowOf = (path: string) => ROWS.find(([, , pattern]) => pattern.test(path.toLowerCase()))?.[0] ?? 'unassigned'
const rows = new Map<string, { lines: number; files: number }>()
const byTop = new Map<string, number>()
let total = 0
for (const path of files) {
  let text: string
  try {
    text = read(path)
  } catch {
    continue // deleted in the working tree, not yet in git
  }
  const lines = text.split('\n').length - (text.endsWith('\n') || text === '' ? 1 : 0)
  const row = rowOf(path)
  const entry = rows.get(row) ?? { lines: 0, files: 0 }
  rows.set(row, { lines: entry.lines + lines, files: entry.files + 1 })
  const top = path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)'
  byTop.set(top, (byTop.get(top) ?? 0) + lines)
  total += lines
}

const show = (label: string, lines: number, extra = '') =>
  console.log(`${label.padEnd(28)}${String(lines).padStart(7)}${extra}`)
console.log(`${'row'.padEnd(28)}${'lines'.padStart(7)}${'budget'.padStart(9)}`)
for (const [row, budget] of [...ROWS, ['unassigned', 0] as const]) {
  const entry = rows.get(row)
  if (entry) show(row, entry.lines, `${String(budget || '').padStart(9)}  ${entry.files} files`)
}
show('total', total, '    26000')
console.log('')
for (const [top, lines] of [...byTop].sort((a, b) => b[1] - a[1])) show(top, lines)
if (process.argv.includes('--files')) {
  for (const path of files) console.log(`${rowOf(path)}\t${path}`)
}
