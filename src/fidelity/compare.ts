// Two answers to one request compared: the status, the headers that carry meaning, the body value by
// value. What legitimately differs (ids, an error's prose) is left out by JSON pointers.

/** An HTTP answer as it is compared: a status, headers in lower case, a body parsed from JSON. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; undefined when there is none. */
  readonly body: unknown
  /** Set when the body is not JSON: its first characters. */
  readonly unreadable?: string
}

export type DifferenceKind =
  | 'status'
  | 'header'
  | 'value'
  | 'type'
  | 'missing-in-sandbox'
  | 'missing-upstream'
  | 'unreadable-upstream'
  | 'upstream-unreachable'
  | 'upstream-timeout'

export interface Difference {
  /** A JSON pointer into the answer: /status, /headers/<name> or /body/<pointer into the body>. */
  readonly pointer: string
  readonly kind: DifferenceKind
  readonly sandbox: unknown
  readonly upstream: unknown
}

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

/** JSON pointers (RFC 6901) whose segment `*` stands for any one key or index. */
export class IgnoreRules {
  readonly #rules: readonly (readonly string[])[]
  constructor(pointers: readonly string[]) {
    this.#rules = pointers.map(segmentsOf)
  }

  /** True for a pointer a rule names, or one below it. */
  ignores(pointer: string): boolean {
    const segments = segmentsOf(pointer)
    return this.#rules.some(
      (rule) => rule.length <= segments.length && rule.every((s, i) => s === '*' || s === segments[i]),
    )
  }
}

export function compareAnswers(sandbox: Answer, upstream: Answer, ignore: IgnoreRules): Difference[] {
  const differences: Difference[] = []
  const add = (difference: Difference): void => {
    if (!ignore.ignores(difference.pointer)) differences.push(difference)
  }
  if (sandbox.status !== upstream.status)
    add({ pointer: '/status', kind: 'status', sandbox: sandbox.status, upstream: upstream.status })
  for (const name of COMPARED_HEADERS) {
    const [ours, theirs] = [headerValue(name, sandbox.headers[name]), headerValue(name, upstream.headers[name])]
    if (ours !== theirs) add({ pointer: `/headers/${name}`, kind: 'header', sandbox: ours, upstream: theirs })
  }
  if (upstream.unreadable !== undefined)
    add({ pointer: '/body', kind: 'unreadable-upstream', sandbox: sandbox.body, upstream: upstream.unreadable })
  else compareValues(sandbox.body, upstream.body, '/body', ignore, add)
  return differences
}

/** A header's value as compared: the media type without parameters, a Location without its id. */
function headerValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (name === 'content-type') return value.split(';', 1)[0]?.trim().toLowerCase()
  if (name === 'location') return locationPath(value).replace(/\/\d+$/, '/{id}')
  return value
}

/** A Location's path: an absolute one and a relative one name the same resource. */
function locationPath(value: string): string {
  try {
    return new URL(value, 'http://relative.invalid').pathname
  } catch {
    return value
  }
}

function compareValues(
  ours: unknown,
  theirs: unknown,
  pointer: string,
  ignore: IgnoreRules,
  add: (d: Difference) => void,
): void {
  if (ignore.ignores(pointer)) return
  if (ours === undefined && theirs === undefined) return
  if (ours === undefined) return add({ pointer, kind: 'missing-in-sandbox', sandbox: ours, upstream: theirs })
  if (theirs === undefined) return add({ pointer, kind: 'missing-upstream', sandbox: ours, upstream: theirs })
  const [ourType, theirType] = [typeOf(ours), typeOf(theirs)]
  if (ourType !== theirType) return add({ pointer, kind: 'type', sandbox: ours, upstream: theirs })
  if (ourType === 'array') {
    const [a, b] = [ours as unknown[], theirs as unknown[]]
    for (let i = 0; i < Math.max(a.length, b.length); i++) compareValues(a[i], b[i], `${pointer}/${i}`, ignore, add)
  } else if (ourType === 'object') {
    const [a, b] = [ours as Record<string, unknown>, theirs as Record<string, unknown>]
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
      compareValues(a[key], b[key], `${pointer}/${escapeToken(key)}`, ignore, add)
  } else if (ours !== theirs) add({ pointer, kind: 'value', sandbox: ours, upstream: theirs })
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
}

/** RFC 6901: `~` is written `~0` and `/` is written `~1` in a reference token. */
export function escapeToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}

function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
}
