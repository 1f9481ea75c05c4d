// A table that a script makes in a Markdown file: the lines of the table that follows its marker line.

/** `markdown` with the table after `marker` replaced by `table`; `file` names it when the marker is missing. */
export function withTable(markdown: string, marker: string, table: string, file: string): string {
  const lines = markdown.split('\n')
  const start = lines.indexOf(marker)
  if (start === -1) throw new Error(`${file} has no line ${marker}`)
  let end = start + 1
  while (lines[end]?.startsWith('|')) end++
  return [...lines.slice(0, start + 1), table, ...lines.slice(end)].join('\n')
}
