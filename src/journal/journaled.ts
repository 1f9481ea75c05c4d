// The namespaces as the journal's readers (the coverage report) see them: each one's name and
// journal. src/namespaces/namespaces.ts is one; the journal imports nothing of test control.
import type { CoverageTally } from './coverage-tally.js'
import type { Journal } from './request-journal.js'

/** A namespace as the report reads it. */
export interface Journaled {
  readonly name: string
  readonly journal: Journal
}

export interface JournaledNamespaces {
  /** The default namespace, always in memory: the report lists it first. */
  readonly default: Journaled
  /** Those in memory. */
  list(): Journaled[]
  /** The counts of calls whose namespace was deleted, evicted, reset or cleared. */
  readonly retired: CoverageTally
  readonly deleted: number
  readonly evicted: number
}
