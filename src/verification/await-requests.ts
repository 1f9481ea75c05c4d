// Waiting for requests on the server (POST /__admin/requests/await): a long poll that answers
// verify's result as soon as the journal holds the calls expected, or one expectation can no
// longer be met, or the namespace has been quiet for `quietMs`, or at the deadline. A test of a
// service that calls the sandbox from a background job waits exactly as long as the job takes.
import type { components } from '../contract/admin-types.js'
import { ERRORS, HttpError } from '../http/errors.js'
import type { Exchange } from '../http/exchange.js'
import { waitsOn } from '../journal/journal-waits.js'
import type { Namespace, Namespaces } from '../namespaces/namespaces.js'
import { bounds, type Expectation, type VerifyResult } from '../journal/verify.js'

export type AwaitResult = components['schemas']['AwaitResult']
type EndedBy = AwaitResult['endedBy']

/** How often a wait reads what other replicas journaled, while its backend holds the namespace (DATABASE_URL). */
export const REPLICAS_POLL_MS = 250

/** What a wait needs of the control call beyond its namespace: the exchange, whose close ends it. */
export interface Waiting {
  readonly exchange: Exchange
}

export interface Wait extends Waiting {
  readonly namespace: Namespace
  readonly namespaces: Namespaces
  readonly traceId: string | undefined
  readonly expectations: readonly Expectation[]
  readonly timeoutMs: number
  readonly quietMs: number | undefined
  /** Verify's answer on the journal as it is now. */
  readonly verifyNow: () => VerifyResult
}

export function waitFor(wait: Wait): Promise<AwaitResult> {
  const { namespace, namespaces, exchange, timeoutMs, quietMs } = wait
  const started = Date.now()
  return new Promise((resolve, reject) => {
    let checking: NodeJS.Immediate | undefined
    let quietTimer: NodeJS.Timeout | undefined
    let polling = false
    let ended = false
    const close = waitsOn(namespaces.journals).open(namespace.name, () => {
      checking ??= setImmediate(check)
    })
    let late = false
    const deadline = setTimeout(() => {
      late = true
      check()
    }, timeoutMs)
    const poll = setInterval(() => void refresh(), REPLICAS_POLL_MS)
    const gone = (): void => end(() => resolve(answer(wait, started, 'deadline')))
    exchange.res.once('close', gone)

    function end(settle: () => void): void {
      ended = true
      close()
      clearTimeout(deadline)
      clearTimeout(quietTimer)
      clearInterval(poll)
      if (checking !== undefined) clearImmediate(checking)
      exchange.res.off('close', gone)
      settle()
    }

    function check(): void {
      checking = undefined
      if (ended) return
      if (namespaces.find(namespace.name) !== namespace) return end(() => reject(deleted(namespace.name)))
      const now = Date.now()
      const result = wait.verifyNow()
      const quietSince = quietMs === undefined ? undefined : Math.max(started, lastCallEnd(wait) ?? started)
      const endedBy = endOf(wait, result, late, quietSince, now)
      if (endedBy !== undefined) return end(() => resolve({ ...result, endedBy, waitedMs: Date.now() - started }))
      if (quietSince !== undefined && quietMs !== undefined) {
        clearTimeout(quietTimer)
        quietTimer = setTimeout(check, quietSince + quietMs - now)
      }
    }

    // Another replica's calls reach this one's journal by a hold of the namespace. A backend gives
    // none when memory here is the namespace's truth: then the journal's records alone wake the wait.
    async function refresh(): Promise<void> {
      if (polling || ended) return
      polling = true
      try {
        if ((await namespaces.existing(namespace.name)) === undefined) return end(() => reject(deleted(namespace.name)))
        const hold = namespaces.hold(namespace)
        if (hold === undefined) return clearInterval(poll)
        await (await hold).release()
        check()
      } catch (error) {
        end(() => reject(error))
      } finally {
        polling = false
      }
    }

    check()
  })
}

/** What ends the wait now, if anything. */
function endOf(
  { expectations, quietMs }: Wait,
  result: VerifyResult,
  late: boolean,
  quietSince: number | undefined,
  now: number,
): EndedBy | undefined {
  const results = result.expectations
  // With quietMs the expectations are judged once the calls stop: a count of 0 is not met at once.
  if (quietMs === undefined && results.length > 0 && results.every((r) => r.passed)) return 'met'
  // The journal only grows while the wait lasts: a count already past its bound stays past it.
  if (results.some((r, i) => !r.incomplete && r.matched > bounds(expectations[i] as Expectation).max))
    return 'unmeetable'
  if (quietSince !== undefined && quietMs !== undefined && now - quietSince >= quietMs) return 'quiet'
  return late ? 'deadline' : undefined
}

/** When the namespace's (the trace's) latest call ended, in epoch milliseconds. */
function lastCallEnd({ namespace, traceId }: Wait): number | undefined {
  const last = namespace.journal.find({ traceId }).at(-1)
  return last === undefined ? undefined : Date.parse(last.time) + Math.ceil(last.durationMs)
}

function answer(wait: Wait, started: number, endedBy: EndedBy): AwaitResult {
  return { ...wait.verifyNow(), endedBy, waitedMs: Date.now() - started }
}

function deleted(name: string): HttpError {
  return new HttpError(ERRORS.notFound, `Namespace ${JSON.stringify(name)} was deleted while the wait lasted`)
}
