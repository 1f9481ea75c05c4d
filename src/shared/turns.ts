// Turns by name, first come first served: the requests of one replica queue for a namespace here,
// so that one at a time of them waits for its row in the database.
export class Turns {
  /** The last turn asked for, by name: it ends when its holder lets go. */
  readonly #last = new Map<string, Promise<void>>()

  /** Waits for the turn of `name`; the function given ends it (call it once). */
  async take(name: string): Promise<() => void> {
    const before = this.#last.get(name)
    let end!: () => void
    const mine = new Promise<void>((resolve) => (end = resolve))
    const last = (before ?? Promise.resolve()).then(() => mine)
    this.#last.set(name, last)
    await before
    return () => {
      end()
      if (this.#last.get(name) === last) this.#last.delete(name)
    }
  }
}
