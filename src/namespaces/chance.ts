// Seeded chaos: whether a fault with a `probability` acts on a call is a pure function of its seed
// and the call's number, so the same calls in the same order meet the same faults on every run.

/** A number in [0, 1) for the `n`th call under `seed` (splitmix32 of both). */
export function chance(seed: number, n: number): number {
  let x = (Math.imul(seed | 0, 0x9e3779b9) + Math.imul(n | 0, 0x85ebca6b)) | 0
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad)
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97)
  return ((x ^ (x >>> 15)) >>> 0) / 2 ** 32
}

/** A seed for a fault armed with a probability and none: chosen once, shown with the fault. */
export function newSeed(): number {
  return Math.floor(Math.random() * 2 ** 31)
}
