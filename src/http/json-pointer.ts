// JSON Pointers (RFC 6901), as verify and fidelity name the places where two bodies differ.

/** `~` is written `~0` and `/` is written `~1` in a reference token. */
export function escapeToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1')
}
