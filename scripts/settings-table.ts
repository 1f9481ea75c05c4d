// Writes the README's settings table from the table of settings (src/settings.ts): the lines of
// the table that follows the marker are replaced. test/docs/docs.test.ts fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { settingsMarkdown } from '../src/config.js'

export const MARKER = '<!-- The table below is made by `npm run docs:settings` from src/settings.ts. -->'

/** The README with its settings table made anew. */
export function withSettingsTable(readme: string): string {
  const lines = readme.split('\n')
  const start = lines.indexOf(MARKER)
  if (start === -1) throw new Error(`README.md has no line ${MARKER}`)
  let end = start + 1
  while (lines[end]?.startsWith('|')) end++
  return [...lines.slice(0, start + 1), settingsMarkdown(), ...lines.slice(end)].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`)
  writeFileSync('README.md', withSettingsTable(readFileSync('README.md', 'utf8')))
