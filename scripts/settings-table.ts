// Writes the README's settings table from the table of settings (src/settings.ts): the lines of
// the table that follows the marker are replaced. test/docs/docs.test.ts fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { settingsMarkdown } from '../src/config.js'
import { withTable } from './lib/markdown-table.js'

export const MARKER = '<!-- The table below is made by `npm run docs:settings` from src/settings.ts. -->'

/** The README with its settings table made anew. */
export function withSettingsTable(readme: string): string {
  return withTable(readme, MARKER, settingsMarkdown(), 'README.md')
}

if (import.meta.url === `file://${process.argv[1]}`)
  writeFileSync('README.md', withSettingsTable(readFileSync('README.md', 'utf8')))
