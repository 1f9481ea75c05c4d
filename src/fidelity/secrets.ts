// An upstream may answer with a secret it was sent (a key echoed in WWW-Authenticate, or in an
// error's message). Every answer is cut where it is read (http/secret-forms.ts), before anything
// shows, records or relays it.

import type { Redact } from '../http/secret-forms.js'

/** Each header's value cut. */
export function redactedHeaders(headers: Iterable<[string, string]>, redact: Redact): Record<string, string> {
  return Object.fromEntries([...headers].map(([name, value]) => [name, redact(value)]))
}
