// Which namespace makes room for a new one once MAX_NAMESPACES are kept in memory, and the refusal
// when none can: making room never loses what a test was told was kept.
import { ERRORS, HttpError, RETRY_AFTER } from '../http/errors.js'
import { DEFAULT_NAMESPACE } from './namespace-choice.js'
import type { Namespace } from './namespace.js'
import type { Keeping } from './namespace-backend.js'

/** Evicted: gone with its files, back from its baseline. Unloaded: out of memory, read back from its files. */
export type Room = { readonly evict: Namespace; readonly unload?: undefined } | { readonly unload: Namespace }

export interface RoomRules {
  readonly max: number
  /** Where a namespace that holds data is kept when it leaves memory (its backend's). */
  readonly keeps: Keeping
}

/**
 * The least recently used namespace (of `live`, in that order) that holds nothing a test gave it is
 * evicted (any when a database keeps them all); else, with files, the least recently used whose data is all
 * in them (no fault, no moved clock: those live in memory only) is unloaded. Never the default one,
 * nor one serving a request. Else `name` is refused: a 503 namespace_limit.
 */
export function roomFor(name: string, live: Iterable<Namespace>, rules: RoomRules): Room {
  let unload: Namespace | undefined
  for (const namespace of live) {
    if (namespace.name === DEFAULT_NAMESPACE || namespace.busy) continue
    if (rules.keeps === 'database' || !namespace.holdsData()) return { evict: namespace }
    if (rules.keeps === 'files' && unload === undefined && namespace.faults.length === 0 && !namespace.clock.moved)
      unload = namespace
  }
  if (unload !== undefined) return { unload }
  const named = `No room for namespace ${JSON.stringify(name)}: the ${rules.max} namespaces kept (MAX_NAMESPACES)`
  throw new HttpError(
    ERRORS.namespaceLimit,
    rules.keeps === 'files'
      ? `${named} all serve a request or hold a fault or a moved clock, which live in memory only; clear those, delete a namespace (DELETE /__admin/namespaces/{name}) or reset it, then try again`
      : `${named} all hold data a test gave them (pets created or replaced, a reset to a seed or a snapshot, a fault, a moved clock), which without DATA_FILE is kept in memory only; delete one (DELETE /__admin/namespaces/{name}) or reset it, then try again`,
    RETRY_AFTER,
  )
}
