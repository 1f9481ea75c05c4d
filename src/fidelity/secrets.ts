// An upstream may answer with a secret it was sent (a key echoed in WWW-Authenticate, or in an
// error's message). Every answer is cut where it is read, before anything shows, records or relays it.

/** Returns the text with every secret cut out. */
export type Redact = (text: string) => string

/**
 * Cuts `secrets` out, longest first so that a key containing another is cut whole: the replay
 * command's cut, which has no sandbox's redactor (that one also knows its admin token and keys).
 */
export function cutting(secrets: readonly (string | undefined)[]): Redact {
  const cut = [...new Set(secrets)]
    .filter((secret): secret is string => secret !== undefined && secret !== '')
    .sort((a, b) => b.length - a.length)
  return (text) => cut.reduce((shown, secret) => shown.replaceAll(secret, '[REDACTED]'), text)
}

/** Each header's value cut. */
export function redactedHeaders(headers: Iterable<[string, string]>, redact: Redact): Record<string, string> {
  return Object.fromEntries([...headers].map(([name, value]) => [name, redact(value)]))
}
