// HAProxy in front of sandbox replicas (scripts/lib/haproxy.ts), stopped when the test ends; tests
// that need it skip without Debian's package, or fail under REQUIRE_PROGRAMS=1.
import type { Test } from 'tap'
import { HAPROXY, startHaproxy as start, type Haproxy } from '../../scripts/lib/haproxy.js'
import { skipWithout } from './system-programs.js'

export { HAPROXY, SERVED_BY, type Haproxy } from '../../scripts/lib/haproxy.js'

/** A tap `skip` value for a test that starts HAProxy (skipWithout's: fails under REQUIRE_PROGRAMS=1). */
export function haproxySkip(t: Test): string | false {
  return skipWithout(t, HAPROXY, 'haproxy')
}

/** HAProxy in front of `backends` (scripts/lib/haproxy.ts); with `t`, stopped when the test ends. */
export async function startHaproxy(backends: readonly string[], t?: Test): Promise<Haproxy> {
  const balancer = await start(backends)
  t?.teardown(balancer.stop)
  return balancer
}
