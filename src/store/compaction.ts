// When the data file's journal is folded into a new snapshot: the settings, and the one a test
// can ask for through the environment.
/** When the journal is folded into a new snapshot. */
export interface Compaction {
  /**
   * Under load, when the journal holds this many records (or as many as the snapshot if that is
   * more and `growWithSnapshot`): the appends that come meanwhile wait for it. It bounds the
   * journal a start after a crash has to read.
   */
  readonly afterRecords: number
  readonly growWithSnapshot: boolean
  /**
   * Before that, as soon as the file has been idle for `idleMs` with this many records in the
   * journal, so that a rewrite of the whole store never holds up the creates of a busy test run.
   */
  readonly idleAfterRecords: number
  readonly idleMs: number
  /** Free space a compaction must leave beside its new snapshot; with less, the journal just grows. */
  readonly headroomBytes: number
}

export const COMPACTION: Compaction = {
  afterRecords: 100_000,
  growWithSnapshot: true,
  idleAfterRecords: 1_000,
  idleMs: 500,
  headroomBytes: 1024 * 1024,
  ...compactionForTests(process.env['ANIMAL_STORE_TEST_COMPACT_EVERY']),
}

/**
 * For tests only (docs/reliability.md): ANIMAL_STORE_TEST_COMPACT_EVERY=n folds the journal every n
 * records, whatever the snapshot's size, so that a test that kills the server lands in compactions.
 */
function compactionForTests(every: string | undefined): Partial<Compaction> {
  const records = Number(every)
  if (every === undefined || !Number.isSafeInteger(records) || records < 1) return {}
  return { afterRecords: records, growWithSnapshot: false, idleAfterRecords: records }
}
