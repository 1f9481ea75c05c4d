// The store's file layout: a JSON snapshot plus an append-only journal of added records, behind
// lowdb's Adapter interface, so that a create costs one small append instead of a rewrite of the
// whole file (O(store)).
//
//   db.json          the snapshot: the store's JSON object, plus "journal": the id of its journal
//   db.json.journal  a header line {"snapshot": id}, then one added record per line
//
// append() acknowledges records only once their lines, newline included, are fsynced. write()
// (lowdb's full write) and compaction write a new snapshot with a new id (atomic replace) and
// remove the old journal; the next append starts a new one. A journal whose header names another
// snapshot is stale (a crash came between those steps) and is ignored: the snapshot holds it all.
//
// Reading: only lines ending in a newline count. A last line without one is the torn end of an
// append a crash interrupted; it was never acknowledged, so it is dropped, and the next write
// starts from a fresh snapshot rather than append after it. Any other bad line is corruption:
// the start stops with a message naming the journal, and nothing is touched.
//
// Group commit: while one write is on its way to disk, the writes asked
// for meanwhile wait and go together in the next one; every caller is answered after the write
// that holds its change.
import { createHash } from 'node:crypto'
import { open, readFile, rm, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Adapter } from 'lowdb'
import { batch, DataFileError, replaceFileDurably, syncDirectory, type Batch } from './durable-io.js'

/**
 * The journal is folded into a new snapshot when it holds this many records, or as many as the
 * snapshot if that is more, even under load: the appends that come meanwhile wait for it. It
 * bounds the journal a start after a crash has to read.
 */
export const COMPACT_AFTER_RECORDS = 100_000

/**
 * Before that, the journal is folded as soon as the file has been idle for a moment, so that a
 * rewrite of the whole store never holds up the creates of a busy test run.
 */
export const IDLE_COMPACTION = { afterRecords: 1_000, idleMs: 500 }

interface Job<R> {
  snapshot: boolean
  /** A snapshot only if the journal holds something (or a write failed since the last one). */
  compact: boolean
  readonly records: R[]
  readonly batch: Batch
}

export class JournaledJsonFile<T extends object, R> implements Adapter<T> {
  readonly file: string
  readonly journalFile: string
  readonly #tempFile: string
  /** Where the records live in T, e.g. "pets". */
  readonly #key: keyof T & string
  readonly #compactAfterRecords: number
  #data: T | undefined
  #pending: Job<R> | undefined
  #busy = false
  #snapshotRecords = 0
  #journalRecords = 0
  /** Open while appends keep coming; closed when the file goes idle. */
  #journal: FileHandle | undefined
  /** Set when the journal on disk cannot take appends: stale, torn, missing, or after a failed write. */
  #needsSnapshot = true
  /** Set when a write failed: what reached the disk is unknown until the next snapshot. */
  #failed = false
  /** The id of the snapshot on disk ('' when there is none, or it names no journal). */
  #snapshotId = ''
  #snapshotOnDisk = false
  /** Whether the journal on disk belongs to the snapshot; if not, the next append starts it. */
  #journalStarted = false

  readonly #idleCompaction: { readonly afterRecords: number; readonly idleMs: number }
  #idleTimer: NodeJS.Timeout | undefined

  constructor(
    file: string,
    key: keyof T & string,
    compactAfterRecords = COMPACT_AFTER_RECORDS,
    idleCompaction = IDLE_COMPACTION,
  ) {
    this.file = file
    this.#idleCompaction = idleCompaction
    this.journalFile = `${file}.journal`
    this.#tempFile = join(dirname(file), `.${basename(file)}.tmp`)
    this.#key = key
    this.#compactAfterRecords = compactAfterRecords
  }

  async read(): Promise<T | null> {
    const text = await readText(this.file, this.file)
    if (text === null) return null
    this.#snapshotOnDisk = true
    let data: Record<string, unknown>
    try {
      data = JSON.parse(text) as Record<string, unknown>
    } catch (error) {
      throw new DataFileError(this.file, `is not valid JSON (${(error as Error).message}); it was left untouched`)
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return data as T
    const { journal: snapshotId, ...rest } = data
    const records = rest[this.#key]
    if (typeof snapshotId !== 'string' || !Array.isArray(records)) return rest as T

    const journal = await this.#readJournal(snapshotId)
    this.#snapshotId = snapshotId
    this.#snapshotRecords = records.length
    // No journal, or one left from an older snapshot: the first append starts a new one.
    this.#needsSnapshot = false
    if (journal === undefined) return rest as T
    for (const record of journal.records) records.push(record)
    this.#journalRecords = journal.records.length
    this.#journalStarted = true
    this.#needsSnapshot = journal.torn
    return rest as T
  }

  /** lowdb's write: a new snapshot of everything (and a fresh journal). */
  write(data: T): Promise<void> {
    return this.#request(data, (job) => (job.snapshot = true))
  }

  /** Records already added to `data`; resolves once they are durable. */
  append(data: T, records: readonly R[]): Promise<void> {
    return this.#request(data, (job) => job.records.push(...records))
  }

  /** Folds the journal into a new snapshot if it holds anything; otherwise waits for writes in flight. */
  compact(data: T): Promise<void> {
    return this.#request(data, (job) => (job.compact = true))
  }

  #request(data: T, add: (job: Job<R>) => void): Promise<void> {
    this.#data = data
    const job = (this.#pending ??= { snapshot: false, compact: false, records: [], batch: batch() })
    add(job)
    if (!this.#busy) this.#flush()
    return job.batch.promise
  }

  #flush(): void {
    // One write at a time: a write asked for while one is on its way waits for the next flush.
    const job = this.#pending
    if (!job || this.#busy || this.#data === undefined) return
    this.#pending = undefined
    this.#busy = true
    const journalFull =
      this.#journalRecords + job.records.length >= Math.max(this.#compactAfterRecords, this.#snapshotRecords)
    const compact = job.compact && (this.#journalRecords > 0 || job.records.length > 0 || this.#failed)
    const work =
      job.snapshot || compact || journalFull || (this.#needsSnapshot && job.records.length > 0)
        ? this.#writeSnapshot(this.#data)
        : this.#appendLines(job.records)
    work
      .then(job.batch.resolve, (error: unknown) => {
        // What reached the journal is unknown: start over from a snapshot.
        this.#needsSnapshot = true
        this.#failed = true
        job.batch.reject(error)
      })
      .finally(() => {
        this.#busy = false
        if (!this.#pending) {
          this.#closeJournal()
          this.#compactWhenIdle()
        }
        // Let the callers of a failed write react (undo their changes) before the next write
        // serialises the data.
        setImmediate(() => this.#flush())
      })
  }

  /** Folds the journal once no write has come for a moment (the timer never keeps the process alive). */
  #compactWhenIdle(): void {
    if (this.#journalRecords < this.#idleCompaction.afterRecords) return
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(() => {
      if (this.#busy || this.#pending || this.#data === undefined) return // a write came: after it, the timer starts over
      // A failure here is met again, and reported, by the next write, which then writes a snapshot.
      this.compact(this.#data).catch(() => undefined)
    }, this.#idleCompaction.idleMs).unref()
  }

  async #writeSnapshot(data: T): Promise<void> {
    // Serialised now, synchronously: the snapshot holds exactly what was added before this write.
    const body = JSON.stringify(data)
    // The id follows from the previous one and the content: never the id of the snapshot it
    // replaces, and the same for the same data from scratch (the same SEED gives the same bytes).
    const id = createHash('sha256').update(`${this.#snapshotId}\n${body}`).digest('hex').slice(0, 16)
    const text = body === '{}' ? `{"journal":"${id}"}` : `${body.slice(0, -1)},"journal":"${id}"}`
    const records = (data as Record<string, unknown>)[this.#key]
    const count = Array.isArray(records) ? records.length : 0
    this.#needsSnapshot = true
    this.#closeJournal()
    // With no snapshot on disk, a journal there is a leftover that holds nothing acknowledged:
    // remove it first, so that it can never be taken for this snapshot's.
    if (!this.#snapshotOnDisk) await rm(this.journalFile, { force: true })
    await replaceFileDurably(this.file, this.#tempFile, text)
    this.#snapshotOnDisk = true
    this.#snapshotId = id
    this.#journalStarted = false
    // From here the old journal is stale (its header names the old snapshot) and is ignored even
    // if this removal does not survive a crash; the first append starts the new one.
    await rm(this.journalFile, { force: true })
    this.#snapshotRecords = count
    this.#journalRecords = 0
    this.#needsSnapshot = false
    this.#failed = false
  }

  async #appendLines(records: readonly R[]): Promise<void> {
    if (records.length === 0) return
    let text = ''
    for (const record of records) text += `${JSON.stringify(record)}\n`
    if (!this.#journalStarted) {
      // The journal's first write: its header, naming the snapshot, goes with the first records,
      // and the new file is made durable in its directory before any of them is acknowledged.
      await writeSynced(this.journalFile, 'w', `${JSON.stringify({ snapshot: this.#snapshotId })}\n${text}`)
      await syncDirectory(dirname(this.journalFile))
      this.#journalStarted = true
    } else {
      const journal = (this.#journal ??= await open(this.journalFile, 'a'))
      await journal.appendFile(text, 'utf8')
      await journal.datasync()
    }
    this.#journalRecords += records.length
  }

  #closeJournal(): void {
    // Everything written through it is already synced: closing can finish in the background.
    this.#journal?.close().catch(() => undefined)
    this.#journal = undefined
  }

  async #readJournal(snapshotId: string): Promise<{ records: R[]; torn: boolean } | undefined> {
    const text = await readText(this.journalFile, this.journalFile)
    if (text === null) return undefined
    const lines = text.split('\n')
    // The part after the last newline: empty, or the torn end of an unacknowledged append.
    const torn = (lines.pop() ?? '') !== ''
    const header = lines[0]
    if (header === undefined) return { records: [], torn: true }
    let headerId: unknown
    try {
      headerId = (JSON.parse(header) as { snapshot?: unknown })?.snapshot
    } catch {
      throw new DataFileError(this.journalFile, 'has a first line that is not a journal header; it was left untouched')
    }
    // A journal left from an older snapshot: that snapshot holds all of it.
    if (headerId !== snapshotId) return undefined
    const records: R[] = []
    for (let i = 1; i < lines.length; i++) {
      try {
        records.push(JSON.parse(lines[i] as string) as R)
      } catch (error) {
        throw new DataFileError(
          this.journalFile,
          `has an invalid line ${i + 1} (${(error as Error).message}); it was left untouched`,
        )
      }
    }
    return { records, torn }
  }
}

async function writeSynced(path: string, flags: 'w' | 'a', text: string): Promise<void> {
  const handle = await open(path, flags)
  try {
    await handle.writeFile(text, 'utf8')
    await handle.datasync()
  } finally {
    await handle.close()
  }
}

async function readText(path: string, name: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new DataFileError(name, `cannot be read: ${(error as Error).message}`)
  }
}

/**
 * Removes a data file and its journal, durably. The journal goes first: a crash in between leaves
 * a snapshot alone, which is a whole store, never a journal without its snapshot.
 */
export async function removeDataFile(file: string): Promise<void> {
  await rm(`${file}.journal`, { force: true })
  await rm(file, { force: true })
  await syncDirectory(dirname(file))
}
