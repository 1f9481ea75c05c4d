// Writes the table of the control API's operations in docs/control-api.md from
// spec/admin.openapi.yaml: each operation's request, summary and x-mcp, path by path.
// test/docs/docs.test.ts fails when the table differs from the one made here.
import { readFileSync, writeFileSync } from 'node:fs'
import { basePathOf, operationsOf, readSpecDocument } from '../src/contract/load.js'
import { CONTROL_SPEC_FILE } from '../src/paths.js'
import { withTable } from './lib/markdown-table.js'

const DOC = 'docs/control-api.md'
export const MARKER = '<!-- The table below is made by `npm run docs:operations` from spec/admin.openapi.yaml. -->'

/** The control API's page with its table of operations made anew. */
export function withOperationsTable(markdown: string): string {
  const spec = readSpecDocument(CONTROL_SPEC_FILE)
  const base = basePathOf(spec['servers'] as never)
  const rows = [...operationsOf(spec)].map(({ path, method, operation }) => {
    const { effect = 'destroys (no x-mcp yet)', idempotent, acrossNamespaces } = operation['x-mcp'] ?? {}
    const tool = [
      effect,
      idempotent === true ? 'idempotent' : [],
      acrossNamespaces === true ? 'across namespaces' : [],
      typeof acrossNamespaces === 'string' ? `across namespaces with \`${acrossNamespaces}=true\`` : [],
    ].flat()
    const cells = [
      `\`${operation.operationId}\``,
      `\`${method.toUpperCase()} ${base}${path}\``,
      String(operation.summary ?? '').replaceAll('|', '\\|'),
      tool.join(', '),
    ]
    return `| ${cells.join(' | ')} |`
  })
  const table = ['| operation | request | what it does | as an MCP tool |', '| --- | --- | --- | --- |', ...rows]
  return withTable(markdown, MARKER, table.join('\n'), DOC)
}

if (import.meta.url === `file://${process.argv[1]}`) writeFileSync(DOC, withOperationsTable(readFileSync(DOC, 'utf8')))
