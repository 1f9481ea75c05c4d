// Two answers to one request compared: the status, the headers that carry meaning, the body value by
// value. What legitimately differs (ids, an error's prose) is left out by JSON pointers.
import type { components } from '../contract/admin-types.js'
import { escapeToken } from '../http/json-pointer.js'

/** An HTTP answer as it is compared: a status, headers in lower case, a body parsed from JSON. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; undefined when there is none. */
  readonly body: unknown
  /** Set when the body is not JSON: its first characters. */
  readonly unreadable?: string
}

/** A JSON pointer into the answer (/status, /headers/<name>, /body/...), its kind, and each side's value. */
export type Difference = Omit<components['schemas']['Drift'], 'operationId' | 'request' | 'time'>

/** Those a client acts on; others (Date, Server, caching) differ between any two servers. */
const COMPARED_HEADERS = [
  'content-type',
  'location',
  'www-authenticate',
  'allow',
  'deprecation',
  'sunset',
  'link',
  'x-stability',
]

/** Ids are assigned by each service; an error's message is prose for people. (Dates live in headers not compared.) */
export const DEFAULT_IGNORED = ['/body/id', '/body/*/id', '/body/message']

/** A test of JSON pointers (RFC 6901) against rules whose segment `*` stands for any one key or index. */
export type Ignore = (pointer: string) => boolean

/** True for a pointer a rule names, or one below it. */
export function ignoring(pointers: readonly string[]): Ignore {
  const rules = pointers.map(segmentsOf)
  return (pointer) => {
    const segments = segmentsOf(pointer)
    return rules.some((rule) => rule.length <= segments.length && rule.every((s, i) => s === '*' || s === segments[i]))
  }
}

export function compareAnswers(sandbox: Answer, upstream: Answer, ignore: Ignore): Difference[] {
  const differences: Difference[] = []
  const add = (difference: Difference): void => {
    if (!ignore(difference.pointer)) differences.push(difference)
  }
  const compareValues = (ours: unknown, theirs: unknown, pointer: string): void => {
    if (ignore(pointer)) return
    if (ours === undefined && theirs === undefined) return
    if (ours === undefined) return add({ pointer, kind: 'missing-in-sandbox', sandbox: ours, upstream: theirs })
    if (theirs === undefined) return add({ pointer, kind: 'missing-upstream', sandbox: ours, upstream: theirs })
    const [ourType, theirType] = [typeOf(ours), typeOf(theirs)]
    if (ourType !== theirType) return add({ pointer, kind: 'type', sandbox: ours, upstream: theirs })
    if (ourType === 'array') {
      const [a, b] = [ours as unknown[], theirs as unknown[]]
      for (let i = 0; i < Math.max(a.length, b.length); i++) compareValues(a[i], b[i], `${pointer}/${i}`)
    } else if (ourType === 'object') {
      const [a, b] = [ours as Record<string, unknown>, theirs as Record<string, unknown>]
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
        compareValues(a[key], b[key], `${pointer}/${escapeToken(key)}`)
    } else if (ours !== theirs) add({ pointer, kind: 'value', sandbox: ours, upstream: theirs })
  }
  if (sandbox.status !== upstream.status)
    add({ pointer: '/status', kind: 'status', sandbox: sandbox.status, upstream: upstream.status })
  for (const name of COMPARED_HEADERS) {
    const [ours, theirs] = [headerValue(name, sandbox.headers[name]), headerValue(name, upstream.headers[name])]
    if (ours !== theirs) add({ pointer: `/headers/${name}`, kind: 'header', sandbox: ours, upstream: theirs })
  }
  if (upstream.unreadable !== undefined)
    add({ pointer: '/body', kind: 'unreadable-upstream', sandbox: sandbox.body, upstream: upstream.unreadable })
  else compareValues(sandbox.body, upstream.body, '/body')
  return differences
}

/** A header's value as compared: the media type without parameters, a Location's path without its id. */
function headerValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (name === 'content-type') return value.split(';', 1)[0]?.trim().toLowerCase()
  if (name === 'location') return locationPath(value).replace(/\/\d+$/, '/{id}')
  return value
}

/** An absolute Location and a relative one name the same resource. */
function locationPath(value: string): string {
  try {
    return new URL(value, 'http://relative.invalid').pathname
  } catch {
    return value
  }
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
}

function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
}
