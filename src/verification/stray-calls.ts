// Stray calls: calls no running test made. In trace mode, a call with neither namespace nor trace
// lands in the default namespace; a call into a namespace after its test ended (explicitly, or by
// its deletion) is a late one of that test; a call whose trace belongs to another namespace's test
// is that test's. They are read from the journals kept, when asked: the request path pays nothing.
import type { components } from '../contract/admin-types.js'
import { DEFAULT_NAMESPACE, type Namespaces } from '../namespaces/namespaces.js'
import type { JournalEntry } from '../journal/request-journal.js'
import { testEndsOn, type TestEnds } from '../journal/test-ends.js'

export type StrayCall = components['schemas']['StrayCall']

/** Every stray call in the journals kept, oldest first; with `test`, that test's only. */
export async function strayCalls(namespaces: Namespaces, traceMode: boolean, test?: string): Promise<StrayCall[]> {
  const ends = testEndsOn(namespaces.journals)
  const kept = (await namespaces.all()).map((ns) => ({ name: ns.name, arrivals: ns.journal.arrivals() }))
  const owners = traceOwners(ends, kept)
  const strays: { stray: StrayCall; arrival: number }[] = []
  for (const { name, arrivals } of kept) {
    const ended = ends.get(name)
    for (const { entry, arrival } of arrivals) {
      const owner = entry.traceId === undefined ? undefined : owners.get(entry.traceId)
      const stray = (reason: StrayCall['reason'], by: string | null) => ({
        stray: describe(entry, name, reason, by),
        arrival,
      })
      if (ended !== undefined && entry.id > ended.lastId) strays.push(stray('after-end', name))
      else if (owner !== undefined && owner !== name) strays.push(stray('other-test', owner))
      else if (name === DEFAULT_NAMESPACE && traceMode && entry.traceId === undefined)
        strays.push(stray('no-test', null))
    }
  }
  // By time, then as received: ids are each namespace's own, and calls in one millisecond are common.
  return strays
    .filter(({ stray }) => test === undefined || stray.test === test)
    .sort((a, b) => Date.parse(a.stray.time) - Date.parse(b.stray.time) || a.arrival - b.arrival)
    .map(({ stray }) => stray)
}

/**
 * Which test each trace belongs to: an ended test whose namespace held it, else the namespace that
 * journaled its first call. Not the default namespace, which is no test's, nor the namespace named
 * after the trace itself (NAMESPACE_FROM_TRACE), which a test that names its own namespace does not use.
 */
function traceOwners(
  ends: TestEnds,
  journals: ReadonlyArray<{ name: string; arrivals: ReadonlyArray<{ entry: JournalEntry; arrival: number }> }>,
): Map<string, string> {
  const owners = new Map<string, string>()
  for (const [name, { traces }] of ends.entries())
    for (const trace of traces) if (!owners.has(trace)) owners.set(trace, name)
  const first = new Map<string, { name: string; time: number; arrival: number }>()
  for (const { name, arrivals } of journals) {
    if (name === DEFAULT_NAMESPACE) continue
    for (const { entry, arrival } of arrivals) {
      const { traceId } = entry
      if (traceId === undefined || traceId === name || owners.has(traceId)) continue
      const time = Date.parse(entry.time)
      const seen = first.get(traceId)
      if (seen === undefined || time < seen.time || (time === seen.time && arrival < seen.arrival))
        first.set(traceId, { name, time, arrival })
    }
  }
  for (const [trace, { name }] of first) owners.set(trace, name)
  return owners
}

function describe(entry: JournalEntry, namespace: string, reason: StrayCall['reason'], test: string | null): StrayCall {
  const { id, method, path, status, operationId, time, traceId } = entry
  const traceparent = entry.headers['traceparent']
  const parentSpanId = typeof traceparent === 'string' ? traceparent.split('-')[2] : undefined
  return {
    reason,
    test,
    namespace,
    entry: { id, method, path, status, operationId },
    time,
    ...(traceId === undefined ? {} : { traceId }),
    ...(traceId === undefined || parentSpanId === undefined ? {} : { parentSpanId }),
  }
}
