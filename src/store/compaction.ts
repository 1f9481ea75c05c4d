/** When a data file's journal is folded into a new image. */
export interface Compaction {
  /**
   * Under load, when the journal holds this many records (or as many as the image if that is more
   * and `growWithImage`): it bounds the journal a start after a crash has to read.
   */
  readonly afterRecords: number
  readonly growWithImage: boolean
  /**
   * Before that, once the file was idle for `idleMs` with this many records in the journal: a
   * rewrite of the whole store never holds up a busy test run's creates.
   */
  readonly idleAfterRecords: number
  readonly idleMs: number
  /** Free space a fold must leave beside its new image; with less, the journal just grows. */
  readonly headroomBytes: number
}

export const COMPACTION: Compaction = {
  afterRecords: 100_000,
  growWithImage: true,
  idleAfterRecords: 1_000,
  idleMs: 500,
  headroomBytes: 1024 * 1024,
  ...compactionForTests(process.env['ANIMAL_STORE_TEST_COMPACT_EVERY']),
}

/** For tests (docs/reliability.md): ANIMAL_STORE_TEST_COMPACT_EVERY=n folds every n records, so that kills land in folds. */
function compactionForTests(every: string | undefined): Partial<Compaction> {
  const records = Number(every)
  if (every === undefined || !Number.isSafeInteger(records) || records < 1) return {}
  return { afterRecords: records, growWithImage: false, idleAfterRecords: records }
}
