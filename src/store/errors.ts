// The store's two errors: a file a start cannot use (the start stops, naming it), and a write the
// disk refused (a 503: nothing of it is served).
export class DataFileError extends Error {
  readonly file: string
  constructor(file: string, problem: string) {
    super(`Data file ${file} ${problem}`)
    this.name = 'DataFileError'
    this.file = file
  }
}

export class StorageError extends Error {
  override readonly cause: unknown
  constructor(cause: unknown) {
    super(`the data file could not be written: ${(cause as Error)?.message ?? String(cause)}`)
    this.name = 'StorageError'
    this.cause = cause
  }
}
