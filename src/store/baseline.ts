// A baseline: what a store's pets start from, kept in its data file (its members `source` and
// `base`, and a reset's append-log line) as this object: pets generated from a seed, which any
// start can make again; a fixtures file, named by a hash of its pets, which only a start with that
// file can; or a named snapshot's pets.
export type Baseline =
  | { readonly kind: 'seed'; readonly seed: number; readonly count: number }
  | { readonly kind: 'fixtures'; readonly sha256: string }
  | { readonly kind: 'snapshot'; readonly name: string }

/** One string per baseline, for maps and messages; never read back. */
export function baselineKey(source: Baseline): string {
  if (source.kind === 'seed') return `seed ${source.seed} (${source.count} pets)`
  if (source.kind === 'fixtures') return `fixtures ${source.sha256}`
  return `snapshot ${JSON.stringify(source.name)}`
}

export function sameBaseline(a: Baseline | undefined, b: Baseline | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && baselineKey(a) === baselineKey(b))
}

/** Whether a value read from a file is a Baseline. */
export function isBaseline(value: unknown): value is Baseline {
  const source = value as Record<string, unknown> | null
  if (typeof source !== 'object' || source === null) return false
  if (source['kind'] === 'seed') return Number.isSafeInteger(source['seed']) && Number.isSafeInteger(source['count'])
  if (source['kind'] === 'fixtures') return typeof source['sha256'] === 'string'
  return source['kind'] === 'snapshot' && typeof source['name'] === 'string'
}
