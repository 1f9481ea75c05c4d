// Turns by name, first come first served: the requests of one replica queue for a namespace here,
// so that one at a time of them waits for its row in the database.
export class Turns {
  /** The last turn asked for, by name: it ends when its holder lets go. */
  readonly #last = new Map<string, Promise<void>>()

  /**
   * Waits for the turn of `name`, at most `timeoutMs`; the function given ends it (call it once).
   * Undefined when the wait ran out: the turn is given up, and those after it wait only for those before.
   */
  async take(name: string, timeoutMs: number): Promise<(() => void) | undefined> {
    const before = this.#last.get(name)
    let end!: () => void
    const mine = new Promise<void>((resolve) => (end = resolve))
    const last = (before ?? Promise.resolve()).then(() => mine)
    this.#last.set(name, last)
    const letGo = (): void => {
      end()
      if (this.#last.get(name) === last) this.#last.delete(name)
    }
    if (before === undefined) return letGo
    let timer: NodeJS.Timeout | undefined
    const came = await Promise.race([
      before.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(resolve, timeoutMs, false))),
    ])
    clearTimeout(timer)
    if (came) return letGo
    letGo()
    return undefined
  }
}
