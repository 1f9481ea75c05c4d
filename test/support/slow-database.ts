// A database slow at chosen steps, each within its own bound, through a cutting proxy: the tests
// that every answer still comes within 5 s time their calls and judge the answers with these.
import type { Test } from 'tap'
import type { CuttingProxy } from './cutting-proxy.js'
import type { Postgres } from './postgres.js'
import { ADMIN, API, call, replicaThroughProxy } from './replicas.js'
import { waitFor } from './sandbox.js'

/** The API's headers for a request in namespace `name`. */
export const ns = (name: string) => ({ ...API, 'x-sandbox-namespace': name, 'content-type': 'application/json' })

/** A replica whose connections to the database go through a proxy, owning `name`, its first read committed. */
export async function ownerThroughProxy(t: Test, db: Postgres, name: string) {
  const replica = await replicaThroughProxy(t, db)
  t.equal((await call(`${replica.origin}/v1/pets?limit=1`, { headers: ns(name) })).status, 200, 'the owner')
  await waitFor(async () => (await db.query('SELECT 1 FROM requests WHERE namespace = $1', [name])).length === 1, {
    what: 'the read in the journal the database keeps',
  })
  return replica
}

/** The next COMMIT sent through `proxy` reaches the database `ms` later; resolves once it was sent. */
export function slowCommit(proxy: CuttingProxy, ms: number): Promise<void> {
  const delayed = proxy.delay('COMMIT')
  void delayed.came.then(() => setTimeout(delayed.pass, ms))
  return delayed.came
}

/** A create in `namespace` through `origin`: its answer, and how long it took. */
export async function timedCreate(origin: string, namespace: string, name: string) {
  const sent = performance.now()
  const answer = await call(`${origin}/v1/pets`, {
    method: 'POST',
    headers: ns(namespace),
    body: { name, categoryId: 1 },
  })
  return { ...answer, ms: Math.round(performance.now() - sent) }
}

/** A control call through `origin`, timed as timedCreate is. */
export async function timedControl(origin: string, method: string, path: string, body?: unknown) {
  const sent = performance.now()
  const answer = await call(`${origin}/__admin${path}`, { method, headers: ADMIN, body })
  return { ...answer, ms: Math.round(performance.now() - sent) }
}

/** A reset of `namespace` through `origin`, timed. */
export function timedReset(origin: string, namespace: string) {
  return timedControl(origin, 'POST', `/reset?namespace=${namespace}`)
}

/**
 * The next message through `proxy` holding `first` reaches the database 2.5 s late, and the one
 * holding `then` after it 2.8 s late: each within its step's 3 s bound.
 */
export function slowSteps(proxy: CuttingProxy, first: string, then: string): void {
  const slow = proxy.delay(first)
  void slow.came.then(() => {
    const next = proxy.delay(then)
    void next.came.then(() => setTimeout(next.pass, 2_800))
    setTimeout(slow.pass, 2_500)
  })
}

/** Answered 503 storage_unavailable within 5 s, as a database too slow is. */
export function refusedInTime(t: Test, answer: { status: number; body: any; ms: number }): void {
  t.ok(answer.ms < 5_000, `answered within 5 s: ${answer.ms} ms`)
  t.equal(answer.status, 503, `as the database was too slow: ${JSON.stringify(answer.body)}`)
  t.match(answer.body, { code: 'storage_unavailable' })
}
