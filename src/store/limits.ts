// What the sandbox keeps is bounded, so that no run of creates can grow a data file or the process
// past what a start can read again. The interface sets no bound: these are the sandbox's own
// (docs/decisions.md). A pet's name has a longest length; each namespace, and all of them
// together, keep at most so many pets and so many bytes of them, and a create past a bound is
// refused before anything of it is stored.

/** The longest name a pet may have, in characters (code points, as JSON Schema's maxLength counts them). */
export const MAX_NAME_LENGTH = 1000

/** Why `name` is too long to keep, or undefined; `field` is how the message names it (body.name). */
export function nameProblem(name: string, field: string): string | undefined {
  // Code units bound code points from above: most names need no count. A surrogate pair is one
  // character in two code units.
  if (name.length <= MAX_NAME_LENGTH) return undefined
  const pairs = name.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0
  if (name.length - pairs <= MAX_NAME_LENGTH) return undefined
  return `${field} must NOT have more than ${MAX_NAME_LENGTH} characters (a bound of this sandbox; the interface sets none)`
}

/** The bounds on what the stores keep: each namespace's, and all of them together. */
export interface StoreBounds {
  readonly maxPets: number
  readonly maxBytes: number
  readonly maxTotalPets: number
  readonly maxTotalBytes: number
}

export const DEFAULT_STORE_BOUNDS: StoreBounds = {
  // Twice the largest seed: a store that starts from SEED_COUNT's maximum still takes as many creates.
  maxPets: 2_000_000,
  maxBytes: 256 * 1024 * 1024,
  maxTotalPets: 4_000_000,
  maxTotalBytes: 1024 * 1024 * 1024,
}

/** The bytes a pet takes in a data file: its JSON and a newline. */
export function petBytes(pet: object): number {
  return Buffer.byteLength(JSON.stringify(pet)) + 1
}

/** A create (or a replacement of the pets) that would take a store past a bound: nothing of it was stored. */
export class StoreFull extends Error {
  override readonly name = 'StoreFull'
}

/**
 * What every open store keeps of its own, counted together against the bounds. A store adds what
 * it takes and gives it back when it is retired (a namespace deleted or evicted).
 */
export class Capacity {
  readonly bounds: StoreBounds
  #pets = 0
  #bytes = 0

  constructor(bounds: StoreBounds = DEFAULT_STORE_BOUNDS) {
    this.bounds = bounds
  }

  /**
   * Throws StoreFull if a store that keeps `own` would pass a bound by taking `more` (pets and
   * bytes beyond what it keeps now); the message says which bound, and how to make room.
   */
  check(own: { pets: number; bytes: number }, more: { pets: number; bytes: number }): void {
    const { maxPets, maxBytes, maxTotalPets, maxTotalBytes } = this.bounds
    const full = (what: string, setting: string): never => {
      throw new StoreFull(
        `${what} (${setting}); reset the namespace or delete one through the control API to make room`,
      )
    }
    if (more.pets > 0 && own.pets + more.pets > maxPets) full(`a namespace keeps at most ${maxPets} pets`, 'MAX_PETS')
    if (more.bytes > 0 && own.bytes + more.bytes > maxBytes)
      full(`a namespace keeps at most ${maxBytes} bytes of pets`, 'MAX_STORE_BYTES')
    if (more.pets > 0 && this.#pets + more.pets > maxTotalPets)
      full(`the namespaces together keep at most ${maxTotalPets} pets`, 'MAX_TOTAL_PETS')
    if (more.bytes > 0 && this.#bytes + more.bytes > maxTotalBytes)
      full(`the namespaces together keep at most ${maxTotalBytes} bytes of pets`, 'MAX_TOTAL_BYTES')
  }

  /** A store took (or, negative, gave back) pets and bytes. */
  add(pets: number, bytes: number): void {
    this.#pets += pets
    this.#bytes += bytes
  }
}
