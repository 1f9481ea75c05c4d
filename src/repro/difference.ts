// The first place two JSON values differ, as a JSON pointer (RFC 6901) and both values there.

export interface Difference {
  readonly pointer: string
  readonly expected: unknown
  readonly got: unknown
}

export function firstDifference(expected: unknown, got: unknown, pointer = ''): Difference | undefined {
  if (Object.is(expected, got)) return undefined
  const bothArrays = Array.isArray(expected) && Array.isArray(got)
  const bothObjects = isObject(expected) && isObject(got) && !Array.isArray(expected) && !Array.isArray(got)
  if (!bothArrays && !bothObjects) return { pointer: pointer || '/', expected, got }
  const a = expected as Record<string, unknown>
  const b = got as Record<string, unknown>
  const keys = bothArrays
    ? Array.from({ length: Math.max((expected as unknown[]).length, (got as unknown[]).length) }, (_, i) => String(i))
    : [...new Set([...Object.keys(a), ...Object.keys(b)])]
  for (const key of keys) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (!(key in a)) return { pointer: at, expected: undefined, got: b[key] }
    if (!(key in b)) return { pointer: at, expected: a[key], got: undefined }
    const found = firstDifference(a[key], b[key], at)
    if (found) return found
  }
  return undefined
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}
