// What compare found in a namespace. Bounded: the oldest differences go first, the counts keep counting.
import type { components } from '../contract/admin-types.js'
import type { Difference } from './compare.js'

export type DriftReport = components['schemas']['DriftReport']
type DriftEntry = components['schemas']['Drift']

/** Differences kept per namespace. */
const MAX_DIFFERENCES = 1000

export class DriftLog {
  compared = 0
  skipped = 0
  #count = 0
  readonly #operations = new Map<string, DriftReport['operations'][string]>()
  readonly #differences: DriftEntry[] = []

  add(operationId: string, request: DriftEntry['request'], differences: readonly Difference[]): void {
    this.compared++
    let counts = this.#operations.get(operationId)
    if (counts === undefined) this.#operations.set(operationId, (counts = { compared: 0, differences: 0 }))
    counts.compared++
    counts.differences += differences.length
    this.#count += differences.length
    const time = new Date().toISOString()
    for (const difference of differences) this.#differences.push({ operationId, request, ...difference, time })
    if (this.#differences.length > MAX_DIFFERENCES)
      this.#differences.splice(0, this.#differences.length - MAX_DIFFERENCES)
  }

  report(namespace: string, upstream: string | null, mode: DriftReport['mode']): DriftReport {
    return {
      namespace,
      upstream,
      mode,
      compared: this.compared,
      skipped: this.skipped,
      count: this.#count,
      operations: Object.fromEntries(this.#operations),
      differences: [...this.#differences],
    }
  }
}
