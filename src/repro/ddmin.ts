// Delta debugging (Zeller and Hildebrandt's ddmin): the smallest subset of `items` on which `fails`
// still holds, each subset tried at most once, within `maxRuns` tries of `fails`.

export interface Minimized<T> {
  /** The smallest failing subset found: 1-minimal (no single item can go) when `complete`. */
  readonly items: readonly T[]
  readonly runs: number
  /** False when the bound on runs stopped the search first. */
  readonly complete: boolean
}

/** `items` must fail as a whole; the search narrows them down. */
export async function ddmin<T>(
  items: readonly T[],
  fails: (subset: readonly T[]) => Promise<boolean>,
  maxRuns: number,
): Promise<Minimized<T>> {
  const tried = new Map<string, boolean>()
  let runs = 0
  const test = async (subset: readonly T[]): Promise<boolean | 'bound'> => {
    const key = subset.map((item) => items.indexOf(item)).join(',')
    const known = tried.get(key)
    if (known !== undefined) return known
    if (runs >= maxRuns) return 'bound'
    runs++
    const failed = await fails(subset)
    tried.set(key, failed)
    return failed
  }
  let current = items
  let n = 2
  search: while (current.length >= 2) {
    const chunks = split(current, n)
    // A chunk alone, then all but a chunk (for n = 2, the complements are the chunks).
    const candidates =
      n === 2 ? chunks : [...chunks, ...chunks.map((chunk) => current.filter((x) => !chunk.includes(x)))]
    for (const [index, candidate] of candidates.entries()) {
      const result = await test(candidate)
      if (result === 'bound') return { items: current, runs, complete: false }
      if (result) {
        current = candidate
        n = index < chunks.length ? 2 : Math.max(n - 1, 2)
        continue search
      }
    }
    if (n >= current.length) break
    n = Math.min(n * 2, current.length)
  }
  return { items: current, runs, complete: true }
}

function split<T>(items: readonly T[], n: number): T[][] {
  const chunks: T[][] = []
  for (let i = 0; i < n; i++)
    chunks.push(items.slice(Math.floor((i * items.length) / n), Math.floor(((i + 1) * items.length) / n)))
  return chunks.filter((chunk) => chunk.length > 0)
}
