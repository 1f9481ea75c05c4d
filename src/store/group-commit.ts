// Group commit: one write at a time; the writes asked for meanwhile wait and go together in the
// next one, and each caller is answered after the write that holds its change.
export class GroupCommit<J> {
  readonly #newJob: () => J
  readonly #run: (job: J) => Promise<void>
  readonly #idle: () => void
  #pending: { readonly job: J; readonly done: Resolvers } | undefined
  #running: Promise<void> | undefined

  /** `idle` is called after a write when none is waiting. */
  constructor(newJob: () => J, run: (job: J) => Promise<void>, idle: () => void) {
    this.#newJob = newJob
    this.#run = run
    this.#idle = idle
  }

  get busy(): boolean {
    return this.#running !== undefined || this.#pending !== undefined
  }

  /** Adds to the next write; resolves once it is done. */
  request(add: (job: J) => void): Promise<void> {
    this.#pending ??= { job: this.#newJob(), done: withResolvers() }
    add(this.#pending.job)
    const { promise } = this.#pending.done
    this.#next()
    return promise
  }

  /** Resolves once every write asked for so far has settled. */
  async settled(): Promise<void> {
    while (this.busy) {
      await (this.#pending?.done.promise ?? this.#running)?.catch(() => undefined)
      // The next write starts a turn after the last one ends.
      if (this.busy) await new Promise((resolve) => setImmediate(resolve))
    }
  }

  #next(): void {
    const pending = this.#pending
    if (pending === undefined || this.#running) return
    this.#pending = undefined
    this.#running = this.#run(pending.job)
    this.#running.then(pending.done.resolve, pending.done.reject).finally(() => {
      this.#running = undefined
      if (!this.#pending) this.#idle()
      // The callers of a failed write undo their changes before the next write reads the data.
      setImmediate(() => this.#next())
    })
  }
}

interface Resolvers {
  readonly promise: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

/** Promise.withResolvers, which Node 20 lacks. */
function withResolvers(): Resolvers {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}
