// A batch's statements go in one round trip, which takes no parameters: every string in them is a
// literal made by `literal()`, and must reach the database as it was, whatever characters it holds.
import t from 'tap'
import { literal } from '../../src/shared/tables.js'
import { postgresSkip, startPostgres } from '../support/postgres.js'

const skip = postgresSkip(t)

t.test('a string written as a literal reaches PostgreSQL as it was', { skip }, async (t) => {
  const db = await startPostgres(t)
  const texts = [
    '',
    'plain',
    "it's",
    "''",
    'a \\ backslash',
    '\\',
    "\\'",
    "E'\\x41'",
    JSON.stringify({ path: "/v1/pets?name=O'Brien", body: 'line\nnext\t"quoted" \\u0000 \u0000', emoji: '🐕' }),
  ]
  for (const text of texts) {
    const [row] = await db.query<{ v: string }>(`SELECT ${literal(text)}::text AS v`)
    t.equal(row?.v, text, JSON.stringify(text))
  }
  const json = JSON.stringify([{ record: { path: "/it's\\here", body: 'x\ty' } }])
  const [row] = await db.query<{ v: unknown }>(
    `SELECT r -> 'record' AS v FROM jsonb_array_elements(${literal(json)}::jsonb) AS r`,
  )
  t.same(row?.v, { path: "/it's\\here", body: 'x\ty' }, 'JSON inside it, as a batch sends its entries')
})
