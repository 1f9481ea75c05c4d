// A secret travels in more than its own text: percent-encoded in a URL (a query, a Location), as
// base64 (Basic credentials carry base64 of `user:key`; a body may hold base64 of the key), and
// with `/` written `\/` in JSON. Keys are bearer tokens (letters, digits, -._~+/ then =), so no
// other JSON escape applies. Cutting every form here is the one cut the journal, the logs and the
// fidelity answers share.

export const REDACTED = '[REDACTED]'

/** Returns the text with every secret cut out. */
export type Redact = (text: string) => string

/** Base64 of a shorter secret is too few characters to tell from other text: only its text is cut. */
const MIN_ENCODED_SECRET = 8

/**
 * The base64 characters fixed by the secret alone, for each of the three places it may start
 * within a 3-byte group: the characters on its edges also carry bits of its neighbours.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  return [0, 1, 2].flatMap((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6))
    return [core, core.replaceAll('+', '-').replaceAll('/', '_')]
  })
}

/** A character as itself or percent-encoded (hex in either case), and `/` also as JSON's `\/`. */
function anyEscape(char: string): string {
  if (/[A-Za-z0-9]/.test(char)) return char
  const hex = [...Buffer.from(char, 'utf8')].map((byte) =>
    byte
      .toString(16)
      .toUpperCase()
      .padStart(2, '0')
      .replace(/[A-F]/g, (digit) => `[${digit}${digit.toLowerCase()}]`),
  )
  const literal = char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
  return `(?:${literal}|%${hex.join('%')}${char === '/' ? '|\\\\/' : ''})`
}

/** The forms a secret is cut in: its text, and its base64 when it is long enough to be told apart. */
function forms(secret: string): string[] {
  return secret.length < MIN_ENCODED_SECRET ? [secret] : [secret, ...base64Cores(secret)]
}

const pattern = (form: string): string => [...form].map(anyEscape).join('')

/**
 * Cuts every form of `secrets` out, longest first so that a key containing another is cut whole;
 * with `keyPrefix`, every key of the family `<prefix><name>` too (NAMESPACE_KEY_PREFIX).
 */
export function cutting(secrets: readonly (string | undefined)[], keyPrefix?: string): Redact {
  const given = secrets.filter((secret): secret is string => secret !== undefined && secret !== '')
  const alternatives = [...new Set(given.flatMap(forms))].sort((a, b) => b.length - a.length).map(pattern)
  // The family's names are not secret, its prefix is: base64 of the prefix is cut alone.
  if (keyPrefix) alternatives.push(`${pattern(keyPrefix)}[A-Za-z0-9_.-]+`, ...forms(keyPrefix).slice(1).map(pattern))
  if (alternatives.length === 0) return (text) => text
  const cut = new RegExp(alternatives.join('|'), 'g')
  return (text) => text.replace(cut, REDACTED)
}
