// What data a store was made from, as one string recorded in its data file (and in a reset's
// journal line): `seed:<seed>:<count>` for generated pets, which any start can make again, or
// `fixtures:sha256:<hash>` for a fixtures file, which only a start with that file can.
export function seedOrigin(seed: number, count: number): string {
  return `seed:${seed}:${count}`
}

/** The seed and count of a seed origin; undefined for any other origin. */
export function parseSeedOrigin(origin: string): { seed: number; count: number } | undefined {
  const match = /^seed:(\d+):(\d+)$/.exec(origin)
  return match ? { seed: Number(match[1]), count: Number(match[2]) } : undefined
}
