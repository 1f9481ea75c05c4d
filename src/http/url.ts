// The request URL, split and parsed once per request: for polka (its `parse` hook) and for the
// API's operations, which are dispatched before polka (src/app.ts).
import type { IncomingMessage } from 'node:http'
import type { Polka, Request } from 'polka'

/** A query: a name given more than once has an array of values, as with polka's own parser. */
export type Query = Map<string, string | string[]>

/** The path, the query string (with its `?`, or '') and the fragment of a request target. */
export function splitUrl(raw: string): { pathname: string; search: string; hash: string | undefined } {
  let pathname = raw
  let hash: string | undefined
  const hashAt = raw.indexOf('#', 1)
  if (hashAt !== -1) {
    hash = raw.slice(hashAt)
    pathname = raw.slice(0, hashAt)
  }
  const searchAt = pathname.indexOf('?', 1)
  if (searchAt === -1) return { pathname, search: '', hash }
  return { pathname: pathname.slice(0, searchAt), search: pathname.slice(searchAt), hash }
}

/** polka's URL parser (@polka/url), with the query read by `parseQuery`. */
export function parseUrl(req: IncomingMessage): ReturnType<Polka['parse']> {
  const raw = req.url ?? '/'
  const parsed = (req as Partial<Request>)._parsedUrl
  if (parsed?.raw === raw) return parsed
  const { pathname, search, hash } = splitUrl(raw)
  // polka's handlers read an object; a null prototype keeps names such as __proto__ plain data.
  const query =
    search.length > 1
      ? Object.assign(Object.create(null) as Record<string, string | string[]>, Object.fromEntries(parseQuery(search)))
      : undefined
  return ((req as Partial<Request>)._parsedUrl = { pathname, search, query, hash, raw })
}

/**
 * A query string (with or without its `?`), read as URLSearchParams reads it. Plain text, with no
 * `%` escapes and no `+`, is split by hand: that is what test suites send (`?limit=20`), and it is
 * several times cheaper than iterating a URLSearchParams, which reads everything else.
 */
export function parseQuery(search: string): Query {
  const values: Query = new Map()
  if (search.includes('%') || search.includes('+')) {
    for (const [name, value] of new URLSearchParams(search)) add(values, name, value)
    return values
  }
  for (const pair of (search.startsWith('?') ? search.slice(1) : search).split('&')) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    if (equals === -1) add(values, pair, '')
    else add(values, pair.slice(0, equals), pair.slice(equals + 1))
  }
  return values
}

function add(values: Query, name: string, value: string): void {
  const seen = values.get(name)
  values.set(name, seen === undefined ? value : typeof seen === 'string' ? [seen, value] : [...seen, value])
}
