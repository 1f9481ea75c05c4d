// What compare found in a namespace. Bounded: the oldest differences go first, the counts keep counting.
import type { Difference, DifferenceKind } from './compare.js'

/** Differences kept per namespace. */
export const MAX_DIFFERENCES = 1000

export interface DriftEntry extends Difference {
  readonly operationId: string
  readonly request: { readonly method: string; readonly target: string }
  readonly time: string
}

export interface OperationDrift {
  /** Requests compared (answered by both, or found the upstream failing). */
  compared: number
  differences: number
}

export interface DriftReport {
  readonly namespace: string
  /** The upstream's base URL without credentials, or null when none is set. */
  readonly upstream: string | null
  readonly mode: string
  readonly compared: number
  /** Requests not compared: unsafe ones (UPSTREAM_UNSAFE off) or past the queue's bound. */
  readonly skipped: number
  readonly count: number
  readonly operations: Record<string, OperationDrift>
  readonly differences: readonly DriftEntry[]
}

export class DriftLog {
  compared = 0
  skipped = 0
  #count = 0
  readonly #operations = new Map<string, OperationDrift>()
  readonly #differences: DriftEntry[] = []

  /** Counts one compared request and keeps its differences. */
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

  /** A request the upstream could not answer: one difference of that kind. */
  failed(
    operationId: string,
    request: DriftEntry['request'],
    kind: DifferenceKind,
    sandboxStatus: number,
    reason: string,
  ): void {
    this.add(operationId, request, [{ pointer: '', kind, sandbox: sandboxStatus, upstream: reason }])
  }

  report(namespace: string, upstream: string | null, mode: string): DriftReport {
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
