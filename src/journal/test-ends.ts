// The tests that ended, by namespace: a test ends when the control API is told so (endTest) or its
// namespace is deleted, and the next begins when a call names the namespace as a test would (a
// reset, a replace, a fault, a clock). The stray calls (src/verification/) are read against them.
import type { JournalMemory } from './journal-memory.js'
import type { Journal } from './request-journal.js'

/** Ended tests a sandbox remembers, the oldest forgotten first. */
const MAX_ENDED = 1000

interface Ended {
  /** Epoch milliseconds. */
  readonly at: number
  /**
   * The last journal id its namespace had given when it ended (0 once deleted: a namespace made
   * anew journals afresh): a call journaled later is late, however close its clock time.
   */
  readonly lastId: number
  /** The traces of the calls its namespace held when it ended: a later call in one is its. */
  readonly traces: ReadonlySet<string>
}

/** The tests that ended, by namespace: what this replica saw end. */
export class TestEnds {
  readonly #ended = new Map<string, Ended>()

  /** Ends the test of `name` now, whose calls were in `traces` (tracesOf), up to the journal's `lastId`. */
  end(name: string, traces: ReadonlySet<string>, lastId: number): Ended {
    const ended = { at: Date.now(), lastId, traces }
    this.#ended.delete(name)
    this.#ended.set(name, ended)
    if (this.#ended.size > MAX_ENDED) this.#ended.delete(this.#ended.keys().next().value as string)
    return ended
  }

  /** A new test begins in `name` (a reset, a replace, a fault, a clock). */
  begin(name: string): void {
    this.#ended.delete(name)
  }

  get(name: string): Ended | undefined {
    return this.#ended.get(name)
  }

  entries(): IterableIterator<[string, Ended]> {
    return this.#ended.entries()
  }
}

/** The traces of the calls a namespace's journal holds (none when it is gone). */
export function tracesOf(journal: Journal | undefined): Set<string> {
  const traces = new Set<string>()
  for (const { traceId } of journal?.find() ?? []) if (traceId !== undefined) traces.add(traceId)
  return traces
}

const registries = new WeakMap<JournalMemory, TestEnds>()

/** The ended tests of the sandbox whose journals share `memory`. */
export function testEndsOn(memory: JournalMemory): TestEnds {
  let ends = registries.get(memory)
  if (ends === undefined) registries.set(memory, (ends = new TestEnds()))
  return ends
}
