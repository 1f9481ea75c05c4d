// Retries as one logical call: the attempts of one call are the journal entries of one operation
// that carry the same Idempotency-Key header, or, without one, the same W3C traceparent (one span
// sent them all: a client that retries resends the request it made). The first attempt stands for
// the call, with every attempt listed.
import type { JournalCursor, JournalEntry, JournalPage } from './request-journal.js'

/** The entries as calls, oldest first: each the first attempt, with `attempts`. */
export function logicalCalls(entries: readonly JournalEntry[]): JournalEntry[] {
  const calls = new Map<string, JournalEntry>()
  const alone: JournalEntry[] = []
  for (const entry of entries) {
    const key = callKey(entry)
    const attempt = { id: entry.id, time: entry.time, status: entry.status }
    const call = key === undefined ? undefined : calls.get(key)
    if (call !== undefined) call.attempts?.push(attempt)
    else {
      const first = { ...entry, attempts: [attempt] }
      if (key === undefined) alone.push(first)
      else calls.set(key, first)
    }
  }
  return [...calls.values(), ...alone].sort((a, b) => a.id - b.id)
}

/** One page of the calls, as GET /__admin/requests pages entries. */
export function logicalPage(
  entries: readonly JournalEntry[],
  { limit, after = 0 }: JournalCursor,
  { unauthenticatedDropped }: { readonly unauthenticatedDropped: number },
): JournalPage {
  const calls = logicalCalls(entries)
  const rest = calls.filter((call) => call.id > after)
  const page = rest.slice(0, limit)
  return {
    count: calls.length,
    entries: page,
    next: rest.length > limit ? (page.at(-1)?.id ?? null) : null,
    unauthenticatedDropped,
  }
}

function callKey({ operationId, headers }: JournalEntry): string | undefined {
  const [key, trace] = [headers['idempotency-key'], headers['traceparent']]
  if (typeof key === 'string') return `${operationId} key ${key}`
  return typeof trace === 'string' ? `${operationId} trace ${trace}` : undefined
}
