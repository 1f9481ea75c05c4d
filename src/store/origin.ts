// What data a store was made from, as one string recorded in its data file (and in a reset's
// journal line): `seed:<seed>:<count>` for generated pets, which any start can make again, or
// `fixtures:sha256:<hash>` for a fixtures file, which only a start with that file can, or
// `snapshot:<name>` for a named snapshot's pets, which a start reads from the snapshot's file.
export function seedOrigin(seed: number, count: number): string {
  return `seed:${seed}:${count}`
}

/** The seed and count of a seed origin; undefined for any other origin. */
export function parseSeedOrigin(origin: string): { seed: number; count: number } | undefined {
  const match = /^seed:(\d+):(\d+)$/.exec(origin)
  return match ? { seed: Number(match[1]), count: Number(match[2]) } : undefined
}

export function snapshotOrigin(name: string): string {
  return `snapshot:${name}`
}

/** The name of a snapshot origin; undefined for any other origin. */
export function parseSnapshotOrigin(origin: string): string | undefined {
  return origin.startsWith('snapshot:') ? origin.slice('snapshot:'.length) : undefined
}
