// The query parser must read every query exactly as URLSearchParams does: its hand-split fast path
// is checked against URLSearchParams on fixed cases and on many random ones.
import fc from 'fast-check'
import t from 'tap'
import { parseQuery, parseUrl, splitUrl, type Query } from '../../src/http/url.js'

function viaUrlSearchParams(search: string): Query {
  const values: Query = new Map()
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = values.get(name)
    values.set(name, seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value])
  }
  return values
}

const entries = (query: Query): unknown[] => [...query]

// Queries as clients send them, beside the random ones below: a repeat, a space as '+', Object's own names.
const CASES = ['?limit=1&limit=2&limit=3', 'limit=20', '?a=b=c', '?name=Rex+the+dog', '?__proto__=x&constructor=y', '?']

t.test('fixed cases read as URLSearchParams reads them', async (t) => {
  for (const search of CASES) t.strictSame(entries(parseQuery(search)), entries(viaUrlSearchParams(search)), search)
  t.strictSame(entries(parseQuery('?limit=20')), [['limit', '20']])
  t.strictSame(entries(parseQuery('?limit=1&limit=2')), [['limit', ['1', '2']]])
})

t.test('random queries read as URLSearchParams reads them', async (t) => {
  // Characters and escapes a query may hold, '=' and '&' twice as likely, valid and not.
  const piece = fc.constantFrom(...'ab==&&%20F+ ?é', 'limit', '%41', '%e2%9c%93', '%zz')
  const search = fc
    .tuple(fc.boolean(), fc.array(piece, { maxLength: 11 }))
    .map(([mark, pieces]) => (mark ? '?' : '') + pieces.join(''))
  const same = (query: string): boolean =>
    JSON.stringify(entries(parseQuery(query))) === JSON.stringify(entries(viaUrlSearchParams(query)))
  // Reports the shortest query that differs.
  const run = fc.check(fc.property(search, same), { numRuns: 5_000, seed: 42 })
  t.same({ failed: run.failed, counterexample: run.counterexample }, { failed: false, counterexample: null })
  t.equal(run.numRuns, 5_000, 'no mismatch in 5,000 random queries')
})

t.test('splitUrl and parseUrl part a target as polka does', async (t) => {
  t.strictSame(splitUrl('/v1/pets?limit=20#top'), { pathname: '/v1/pets', search: '?limit=20', hash: '#top' })
  t.strictSame(splitUrl('/v1/pets'), { pathname: '/v1/pets', search: '', hash: undefined })
  t.strictSame(splitUrl('/v1/pets#a?b'), { pathname: '/v1/pets', search: '', hash: '#a?b' })
  const req = { url: '/__admin/requests?method=GET&__proto__=x' } as import('node:http').IncomingMessage
  const parsed = parseUrl(req)
  t.equal(parsed.pathname, '/__admin/requests')
  t.equal(parsed.search, '?method=GET&__proto__=x')
  t.equal(Object.getPrototypeOf(parsed.query), null, 'a query object without a prototype to pollute')
  t.strictSame({ ...parsed.query }, { method: 'GET', ['__proto__']: 'x' })
  t.equal(parseUrl(req), parsed, 'parsed once per request')
  t.equal(parseUrl({ url: '/healthz' } as import('node:http').IncomingMessage).query, undefined, 'no query, no object')
})
