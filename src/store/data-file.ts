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
// Faults (a full disk, EIO, a read-only file system): what is acknowledged is durable, and a
// failed write changes nothing that is read back. A failed append is cut back by the journal
// (journal-file.ts), and the next append needs no more room than its own lines. A compaction (a
// second copy of the data beside the first) is only tried when the file system has room for it;
// when it fails, its temporary file is removed and the journal goes on. Only a full write
// (lowdb's, or after a snapshot's directory fsync failed) needs a whole new snapshot first.
// Reading the journal back, torn end included: journal-text.ts.
//
// Group commit: while one write is on its way to disk, the writes asked for meanwhile wait and go
// together in the next one; every caller is answered after the write that holds its change.
//
// Two kinds of journal record (the Layout given by store.ts says how a start replays them):
// records added to the store, and records that replace its data (a reset: a line naming data a
// start can make again, instead of a rewrite of the whole file). And a store that starts from data
// a start can make again (a namespace's initial data) need not be on disk until it changes: with
// no snapshot, its journal's header names that data (`unwritten.id`), and its first change costs
// one new journal file. Until then, even a reset need not make a file of its own: a layout can
// write it elsewhere as one line (the namespaces' shared log of origins, namespace-origins.ts),
// and the store's own journal, when it starts, begins with that reset.
import { dirname } from 'node:path'
import type { Adapter } from 'lowdb'
import { batch, DataFileError, replaceFileDurably, tempFileOf, type Batch } from './durable-io.js'
import { COMPACTION, type Compaction } from './compaction.js'
import { nodeFileSystem, type FileSystem } from './file-system.js'
import { JournalFile } from './journal-file.js'
import { oneLine, readJournal, type DroppedTail, type ReadJournal } from './journal-text.js'
import { readSnapshotText, snapshotText, type SnapshotText } from './snapshot-text.js'

export interface DataFileOptions {
  /** The file operations to use: the real file system unless a test injects faults. */
  readonly fileSystem?: FileSystem
  readonly compaction?: Partial<Compaction>
  /** How many bytes of a file are read at a time: files are read in chunks, never whole. */
  readonly readChunkBytes?: number
}

/** Files are read this much at a time. */
export const READ_CHUNK_BYTES = 1024 * 1024

/** How the records of a journal make the data again, and what a store is before it is ever written. */
export interface Layout<T, R> {
  /** Applies a journal's records, in order, to the data before them. Default: adds each to the records. */
  readonly replay?: (data: T, records: readonly R[]) => Promise<T>
  /**
   * Whether a record replaces all the data before it (a reset): a start need not keep the records
   * before the last such one, so a long history costs no more memory than what it ends with.
   */
  readonly startsOver?: (record: R) => boolean
  /**
   * The data of a store that has no snapshot on disk, and the id its journal's header then names:
   * such a store is written only when it first changes, as a journal alone.
   */
  readonly unwritten?: {
    readonly id: string
    readonly data: () => Promise<T>
    /**
     * The reset of such a store kept outside its files, and how to write the next one there (one
     * line in a log that many stores share, instead of a new file and a directory fsync). A start
     * replays `reset` onto `data` when the store has no file of its own; once it has one, its own
     * files hold everything and come first.
     */
    readonly resets?: { readonly reset: R | undefined; readonly write: (record: R) => Promise<void> }
  }
}

interface Job<R> {
  snapshot: boolean
  /** Fold the journal if it holds anything; always cut a tail left by a failed write. */
  compact: boolean
  /** Whether a record replaces the data (a reset), rather than adding to it. */
  replaces: boolean
  readonly records: R[]
  readonly batch: Batch
}

export class JournaledJsonFile<T extends object, R> implements Adapter<T> {
  readonly file: string
  readonly journalFile: string
  readonly #tempFile: string
  /** Where the records live in T, e.g. "pets". */
  readonly #key: keyof T & string
  readonly #fs: FileSystem
  readonly #compaction: Compaction
  readonly #layout: Layout<T, R>
  readonly #readChunkBytes: number
  #data: T | undefined
  #pending: Job<R> | undefined
  #busy = false
  #snapshotRecords = 0
  /** The size of the snapshot on disk: what a fold needs room for, with the journal since. */
  #snapshotBytes = 0
  /** The id of the snapshot on disk ('' when there is none, or it names no journal). */
  #snapshotId = ''
  #snapshotOnDisk = false
  /**
   * Set when appends cannot go on: the snapshot names no journal (a file of the user's own), a
   * full write failed, or a snapshot's directory fsync failed after its rename (which file a crash
   * leaves is in doubt). The next write is a whole snapshot.
   */
  #needsSnapshot = true
  /** Set when a full write failed or left the directory in doubt: even a stop writes a snapshot. */
  #diskBehind = false
  readonly #journal: JournalFile
  /** Set when a temporary snapshot may be on disk (its removal failed, or a crash left it). */
  #tempLeft = true
  /** The journal is folded when it holds this many records. */
  #foldAt = 0
  #droppedTail: DroppedTail | undefined
  #idleTimer: NodeJS.Timeout | undefined
  /** The write under way, if any. */
  #running: Promise<void> | undefined
  /** Cleared only for a store known to have no file that has written none since. */
  #mayHaveFiles = true
  /** Set once the store is to be removed: no fold on a timer. */
  #retired = false
  /**
   * The reset written outside the store's files (Layout.unwritten.resets) that its data starts
   * from: the store's own journal, when it starts, begins with it. Cleared once a file of its own
   * holds it.
   */
  #resetElsewhere: R | undefined

  constructor(file: string, key: keyof T & string, options: DataFileOptions = {}, layout: Layout<T, R> = {}) {
    this.file = file
    this.journalFile = `${file}.journal`
    this.#tempFile = tempFileOf(file)
    this.#key = key
    this.#fs = options.fileSystem ?? nodeFileSystem
    this.#compaction = { ...COMPACTION, ...options.compaction }
    this.#layout = layout
    this.#readChunkBytes = options.readChunkBytes ?? READ_CHUNK_BYTES
    this.#journal = new JournalFile(this.journalFile, this.#fs)
    this.#foldAt = this.#foldEvery()
  }

  /** What the last read() dropped from the end of the journal, if anything. */
  get droppedTail(): DroppedTail | undefined {
    return this.#droppedTail
  }

  async read(): Promise<T | null> {
    const data = await this.#readSnapshot()
    if (data === undefined) return this.#readUnwritten()
    this.#snapshotOnDisk = true
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return data as T
    const { journal: snapshotId, ...rest } = data as Record<string, unknown>
    const records = rest[this.#key]
    if (typeof snapshotId !== 'string' || !Array.isArray(records)) return rest as T

    const journal = await this.#readJournal(snapshotId)
    this.#snapshotId = snapshotId
    this.#snapshotRecords = records.length
    // No journal, or one left from an older snapshot: the first append starts a new one.
    this.#needsSnapshot = false
    this.#foldAt = this.#foldEvery()
    if (journal === undefined) return rest as T
    return this.#replay(rest as T, journal)
  }

  /**
   * What read() finds where the caller knows that no file is there (it just removed them, or never
   * made them), without reading: nothing. The first write starts the files.
   */
  readAbsent(): null {
    this.#startUnwritten()
    this.#mayHaveFiles = false
    this.#tempLeft = false
    this.#journal.assumeAbsent()
    return null
  }

  /** Whether any file of this store may be on disk (false only for one known absent that never wrote). */
  get mayHaveFiles(): boolean {
    return this.#mayHaveFiles
  }

  /**
   * Whether the store has no file of its own that holds anything: its data is the initial data
   * and the reset written elsewhere (Layout.unwritten.resets), where its next reset goes too.
   */
  get resetsGoElsewhere(): boolean {
    if (this.#layout.unwritten?.resets === undefined) return false
    return !this.#snapshotOnDisk && !this.#needsSnapshot && !this.#journal.started
  }

  /**
   * For a store about to be removed: resolves once every write asked for so far has settled (stored
   * or failed), folding nothing, and no fold on a timer comes after.
   */
  async retire(): Promise<void> {
    this.#retired = true
    clearTimeout(this.#idleTimer)
    while (this.#busy || this.#pending) {
      await (this.#pending?.batch.promise ?? this.#running)?.catch(() => undefined)
      // The next write starts a turn after the last one ends.
      if (this.#busy || this.#pending) await new Promise((resolve) => setImmediate(resolve))
    }
    this.#journal.close()
  }

  /** For a retired store that is kept after all (its removal failed): folds on a timer again. */
  reinstate(): void {
    this.#retired = false
  }

  /** With no snapshot on disk, a store of an unwritten layout takes appends to a journal that names it. */
  #startUnwritten(): void {
    const unwritten = this.#layout.unwritten
    if (unwritten === undefined) return
    this.#snapshotId = unwritten.id
    this.#needsSnapshot = false
  }

  /**
   * With no snapshot on disk: the store this layout starts from, and its journal if one names it;
   * null when there is neither (a journal left from something else is replaced by the first append).
   */
  async #readUnwritten(): Promise<T | null> {
    const unwritten = this.#layout.unwritten
    if (unwritten === undefined) return null
    this.#startUnwritten()
    const journal = await this.#readJournal(unwritten.id)
    if (journal !== undefined && journal.started) return this.#replay(await unwritten.data(), journal)
    const reset = unwritten.resets?.reset
    if (reset === undefined) return null
    this.#resetElsewhere = reset
    const data = await unwritten.data()
    return this.#layout.replay ? this.#layout.replay(data, [reset]) : this.#addRecords(data, [reset])
  }

  /**
   * The snapshot on disk, undefined when there is none: read line by line in the layout the store
   * writes (snapshot-text.ts), and whole in any other (a file of the user's own).
   */
  async #readSnapshot(): Promise<unknown> {
    const size = { bytes: 0 }
    let data: unknown
    try {
      data = await readSnapshotText(this.#key, this.#fs.readChunks(this.file, this.#readChunkBytes), size)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new DataFileError(this.file, `cannot be read: ${(error as Error).message}`)
    }
    if (data === undefined) {
      const bytes = await this.#readFile(this.file)
      if (bytes === undefined) return undefined
      size.bytes = bytes.length
      try {
        data = JSON.parse(bytes.toString('utf8'))
      } catch (error) {
        throw new DataFileError(this.file, `is not valid JSON (${oneLine(error)}); it was left untouched`)
      }
    }
    this.#snapshotBytes = size.bytes
    return data
  }

  /** The journal, read in chunks, when its header names `snapshotId`; undefined when it is missing or stale. */
  async #readJournal(snapshotId: string): Promise<ReadJournal<R> | undefined> {
    const chunks = this.#fs.readChunks(this.journalFile, this.#readChunkBytes)
    try {
      return await readJournal<R>(this.journalFile, chunks, snapshotId, this.#layout.startsOver)
    } catch (error) {
      if (error instanceof DataFileError) throw error
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new DataFileError(this.journalFile, `cannot be read: ${(error as Error).message}`)
    }
  }

  async #replay(data: T, journal: ReadJournal<R>): Promise<T> {
    const replayed = this.#layout.replay
      ? await this.#layout.replay(data, journal.records)
      : this.#addRecords(data, journal.records)
    this.#journal.load({
      started: journal.started,
      bytes: journal.bytes,
      records: journal.count,
      tail: journal.dropped !== undefined,
    })
    this.#droppedTail = journal.dropped
    return replayed
  }

  #addRecords(data: T, added: readonly R[]): T {
    const records = (data as Record<string, unknown>)[this.#key] as R[]
    for (const record of added) records.push(record)
    return data
  }

  /** lowdb's write: a new snapshot of everything (and a fresh journal). */
  write(data: T): Promise<void> {
    return this.#request(data, (job) => (job.snapshot = true))
  }

  /** Records already added to `data`; resolves once they are durable. */
  append(data: T, records: readonly R[]): Promise<void> {
    return this.#request(data, (job) => job.records.push(...records))
  }

  /**
   * A record that replaced all of `data` (which already holds its result), written as one journal
   * line; resolves once it is durable. Where the journal cannot take it (appends need a whole
   * snapshot first), the whole data is written instead: atomic either way.
   */
  replaceWith(data: T, record: R): Promise<void> {
    return this.#request(data, (job) => {
      job.records.push(record)
      job.replaces = true
    })
  }

  /**
   * Waits for the writes in flight, cuts what a failed one left, and folds the journal into a new
   * snapshot if it holds anything and the disk has room. A fold that fails is not an error: the
   * journal still holds everything.
   */
  compact(data: T): Promise<void> {
    return this.#request(data, (job) => (job.compact = true))
  }

  #request(data: T, add: (job: Job<R>) => void): Promise<void> {
    this.#data = data
    const job = (this.#pending ??= { snapshot: false, compact: false, replaces: false, records: [], batch: batch() })
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
    this.#running = this.#run(job, this.#data)
    this.#running.then(job.batch.resolve, job.batch.reject).finally(() => {
      this.#busy = false
      if (!this.#pending) {
        this.#journal.closeWhenIdle()
        this.#compactWhenIdle()
      }
      // Let the callers of a failed write react (undo their changes) before the next write
      // serialises the data.
      setImmediate(() => this.#flush())
    })
  }

  async #run(job: Job<R>, data: T): Promise<void> {
    // A reset written elsewhere makes no file of the store's own: removing it later need not look for any.
    const writeElsewhere = this.#resetWrittenElsewhere(job)
    if (writeElsewhere) return writeElsewhere()
    if (job.snapshot || job.records.length > 0) this.#mayHaveFiles = true
    // Serialised first, before any await: a snapshot holds nothing of the requests that come meanwhile.
    // A job that replaced the data cannot be written as a snapshot without its records (the data
    // before them is gone): where a snapshot must come first, it is the whole job.
    if (job.snapshot || (job.replaces && this.#mustWriteSnapshot(job)))
      return this.#writeWholeSnapshot(this.#serialise(data))
    // Without this job's records, which then go to the new journal: a snapshot that fails after
    // its rename must not leave records on disk that are answered as refused.
    const whole = this.#mustWriteSnapshot(job) ? this.#serialise(data, job.records) : undefined
    // Once this job's records are durable, this holds exactly what is on disk.
    const fold = !whole && this.#foldDue(job) ? this.#serialise(data) : undefined
    await this.#removeTempFile()
    if (whole) await this.#writeWholeSnapshot(whole)
    if (job.records.length > 0) await this.#appendToJournal(job.records)
    else await this.#journal.cutTail()
    if (fold) await this.#fold(fold)
  }

  /**
   * For a job that is one reset of a store with no file of its own, where the layout writes resets
   * elsewhere: that write. (A failed start of its own journal is cut first: a file with records
   * that were refused must not outlive the reset that follows them.)
   */
  #resetWrittenElsewhere(job: Job<R>): (() => Promise<void>) | undefined {
    const resets = this.#layout.unwritten?.resets
    const [record] = job.records
    if (resets === undefined || record === undefined || !job.replaces || job.records.length !== 1) return undefined
    if (job.snapshot || !this.resetsGoElsewhere) return undefined
    return async () => {
      await this.#journal.cutTail()
      await resets.write(record)
      this.#resetElsewhere = record
    }
  }

  /** A journal of the store's own that starts now begins with the reset written elsewhere, if any. */
  async #appendToJournal(records: readonly R[]): Promise<void> {
    const elsewhere = this.#journal.started ? undefined : this.#resetElsewhere
    await this.#journal.append(this.#snapshotId, elsewhere === undefined ? records : [elsewhere, ...records])
    this.#resetElsewhere = undefined
  }

  #mustWriteSnapshot(job: Job<R>): boolean {
    return this.#needsSnapshot && (job.records.length > 0 || (job.compact && this.#diskBehind))
  }

  #foldDue(job: Job<R>): boolean {
    if (this.#needsSnapshot) return false
    const records = this.#journal.records + job.records.length
    return records > 0 && (job.compact || records >= this.#foldAt)
  }

  #foldEvery(): number {
    const { afterRecords, growWithSnapshot } = this.#compaction
    return growWithSnapshot ? Math.max(afterRecords, this.#snapshotRecords) : afterRecords
  }

  /** Folds the journal once no write has come for a moment (the timer never keeps the process alive). */
  #compactWhenIdle(): void {
    if (this.#retired || this.#journal.records < this.#compaction.idleAfterRecords) return
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(() => {
      if (this.#busy || this.#pending || this.#data === undefined) return // a write came: after it, the timer starts over
      // Only cutting a tail can fail here, and the next write meets that again and reports it.
      this.compact(this.#data).catch(() => undefined)
    }, this.#compaction.idleMs).unref()
  }

  async #writeWholeSnapshot(snapshot: SnapshotText): Promise<void> {
    await this.#removeTempFile()
    try {
      await this.#writeSnapshot(snapshot)
    } catch (error) {
      // Memory holds what the disk may not (callers undo only added records): write it all again.
      this.#needsSnapshot = true
      this.#diskBehind = true
      throw error
    }
  }

  /**
   * Folds the journal into a new snapshot if the file system has room for one beside the old one.
   * If not, or if it fails, the journal simply goes on: it holds everything, so the records of
   * this job are not failed for it, and the next try waits for as many records again.
   */
  async #fold(snapshot: SnapshotText): Promise<void> {
    try {
      // The new snapshot is made as it is written: its size is at most about the old one's and the journal's.
      if (await this.#roomFor(this.#snapshotBytes + this.#journal.bytes)) return await this.#writeSnapshot(snapshot)
    } catch {
      // Before the rename nothing changed; after it, #renamed made the next write a snapshot.
    }
    this.#foldAt = this.#journal.records + this.#foldEvery()
  }

  async #roomFor(bytes: number): Promise<boolean> {
    const free = await this.#fs.freeBytes(dirname(this.file)).catch(() => 0)
    return free >= bytes + this.#compaction.headroomBytes
  }

  /**
   * The snapshot of `data`, `without` some of its records: what it holds is taken now, its text
   * made as it is written.
   */
  #serialise(data: T, without: readonly R[] = []): SnapshotText {
    const excluded = new Set(without)
    const { [this.#key]: all, ...members } = data as Record<string, unknown>
    const records = Array.isArray(all) ? (excluded.size > 0 ? all.filter((r) => !excluded.has(r)) : [...all]) : []
    return snapshotText(members, this.#key, records, this.#snapshotId)
  }

  async #writeSnapshot(snapshot: SnapshotText): Promise<void> {
    this.#journal.close()
    // With no snapshot on disk, a journal there is a leftover that holds nothing acknowledged
    // (unless it is the journal of a store never written whole): remove it first, so that it can
    // never be taken for this snapshot's.
    if (!this.#snapshotOnDisk && this.#snapshotId !== this.#layout.unwritten?.id)
      await this.#fs.remove(this.journalFile)
    try {
      await replaceFileDurably(this.file, this.#tempFile, snapshot.chunks, {
        fs: this.#fs,
        renamed: () => this.#renamed(snapshot.id()),
      })
    } catch (error) {
      this.#tempLeft = true
      throw error
    }
    this.#snapshotOnDisk = true
    this.#needsSnapshot = false
    this.#diskBehind = false
    this.#snapshotRecords = snapshot.records
    this.#snapshotBytes = snapshot.bytes()
    this.#foldAt = this.#foldEvery()
    // From here the old journal is stale (its header names the old snapshot) and is ignored even
    // if this removal fails or does not survive a crash; the first append starts the new one.
    await this.#fs.remove(this.journalFile).catch(() => undefined)
  }

  /**
   * Once renamed, the snapshot on disk is the new one or, until the directory fsync succeeds, in
   * doubt: either way the old journal takes no more appends, and until that fsync succeeds the
   * next write is a whole snapshot again.
   */
  #renamed(id: string): void {
    this.#snapshotId = id
    // The snapshot holds what the reset written elsewhere made (and a failed one leaves the store
    // to be written whole again).
    this.#resetElsewhere = undefined
    this.#needsSnapshot = true
    this.#diskBehind = true
    this.#journal.restart()
  }

  /** Removes a temporary snapshot that a failure or a crash left; tried again before each write until it goes. */
  async #removeTempFile(): Promise<void> {
    if (!this.#tempLeft) return
    await this.#fs.remove(this.#tempFile).then(
      () => (this.#tempLeft = false),
      () => undefined,
    )
  }

  async #readFile(path: string): Promise<Buffer | undefined> {
    try {
      return await this.#fs.readFile(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new DataFileError(path, `cannot be read: ${(error as Error).message}`)
    }
  }
}
