// JSON.parse turns every number into a double, so a literal such as 9007199254740991.4 or
// 1.0000000000000001 arrives as a whole number it never was. Validation then sees a valid integer,
// and the client's value would be rounded without a word. This finds such literals in the raw text.

export interface RoundedNumber {
  /** Where the number is, as validation names fields: body.categoryId, body.tags.0 */
  readonly path: string
  readonly literal: string
  readonly parsed: number
}

// One token and the whitespace before it; strings are matched first so that digits inside them are skipped.
const TOKEN = /\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[{}[\],:]|true|false|null)/y

/**
 * The first number in `text` (already known to be valid JSON) that JSON.parse turns into a safe
 * integer although the literal is a different value. Larger integers are left to validation,
 * which refuses them as beyond int64-as-safe-integer.
 */
export function findRoundedInteger(text: string, root: string): RoundedNumber | undefined {
  // Most bodies hold no decimal point, exponent or long digit run: nothing to look at.
  if (!/\d[.eE]|\d{16}/.test(text)) return undefined
  const frames: Array<{ readonly object: boolean; key: string; index: number; expectKey: boolean }> = []
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const token = match[1] ?? ''
    const frame = frames.at(-1)
    if (token === '{' || token === '[')
      frames.push({ object: token === '{', key: '', index: 0, expectKey: token === '{' })
    else if (token === '}' || token === ']') frames.pop()
    else if (token === ',') {
      if (frame?.object) frame.expectKey = true
      else if (frame) frame.index++
    } else if (token.startsWith('"')) {
      if (frame?.object && frame.expectKey) {
        frame.key = JSON.parse(token) as string
        frame.expectKey = false
      }
    } else if (isRoundedInteger(token)) {
      const path = [root, ...frames.map((f) => (f.object ? f.key : String(f.index)))].join('.')
      // Keys are the client's text: an error message echoes at most this much of them.
      return { path: path.length > 200 ? `${path.slice(0, 200)}…` : path, literal: token, parsed: Number(token) }
    }
  }
  return undefined
}

function isRoundedInteger(literal: string): boolean {
  if (/^-?\d{1,15}$/.test(literal)) return false
  const parsed = Number(literal)
  if (!Number.isSafeInteger(parsed)) return false
  return exactInteger(literal) !== BigInt(parsed)
}

/** The exact integer a JSON number literal stands for, or undefined when it is not a whole number. */
export function exactInteger(literal: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)
  if (!match) return undefined
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
  const digits = BigInt(whole + fraction)
  if (digits === 0n) return 0n
  const scale = Number(exponent) - fraction.length
  // Beyond this the value is far outside any safe integer anyway.
  if (scale > 400) return undefined
  let value: bigint
  if (scale >= 0) value = digits * 10n ** BigInt(scale)
  else {
    if (-scale > whole.length + fraction.length) return undefined // a non-zero fraction below 1
    const divisor = 10n ** BigInt(-scale)
    if (digits % divisor !== 0n) return undefined
    value = digits / divisor
  }
  return sign === '-' ? -value : value
}
