// The shared store writes a batch's texts (journal entries, states, pets) into its statements as
// SQL literals: each must come back from a real PostgreSQL exactly as it went, quotes, backslashes
// and escape-like sequences included, whichever way standard_conforming_strings is set.
import pg from 'pg'
import t from 'tap'
import { literal } from '../../src/shared/tables.js'
import { postgresSkip, startPostgres } from '../support/postgres.js'

const TEXTS = [
  '',
  "it's",
  "''",
  'a\\b',
  '\\',
  "\\'",
  "'\\",
  '\\n\\t\\x41\\u0041\\101',
  "$$ $tag$ E'x'",
  'pets 🐈 ümlaut\nline\ttab',
  JSON.stringify([{ path: "/v1/pets?name=O'Hara", headers: { 'x-note': 'C:\\temp\\"quoted"' } }]),
]

t.test('a literal comes back as the text it was made of', { skip: postgresSkip(t) }, async (t) => {
  const db = await startPostgres(t)
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  t.teardown(() => client.end())
  for (const conforming of ['on', 'off']) {
    await client.query(`SET standard_conforming_strings = ${conforming}`)
    const { rows } = await client.query<{ text: string }>(
      TEXTS.map((text, i) => `SELECT ${i} AS i, ${literal(text)} AS text`).join(' UNION ALL ') + ' ORDER BY i',
    )
    t.same(
      rows.map((row) => row.text),
      TEXTS,
      `every text, standard_conforming_strings ${conforming}`,
    )
  }
  const [json] = TEXTS.slice(-1)
  const { rows } = await client.query<{ value: unknown }>(`SELECT ${literal(json ?? '')}::jsonb AS value`)
  t.same(rows[0]?.value, JSON.parse(json ?? ''), 'JSON read as jsonb is the same value')
})
