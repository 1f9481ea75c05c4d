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
// failed write changes nothing that is read back. A failed append leaves the journal's length
// where its last whole record ends; the bytes past it (any part of the refused lines) are cut off
// at once, and again before the next append if that failed too, through a new descriptor: the one
// that failed is never trusted again (after a failed fsync, Linux may drop the unwritten pages and
// a second fsync of the same file report success; PostgreSQL's lesson). The next append then
// simply appends: it needs no more room than its own lines. A compaction (a new snapshot beside the
// old one, so a second copy of the data) is only tried when the file system has room for it plus
// a margin; when it fails, its temporary file is removed and the journal goes on. Only a full
// write (lowdb's, or after the directory fsync that follows a snapshot's rename failed) needs
// a whole new snapshot before anything else is written.
//
// Reading: only lines ending in a newline can be records. The end of the journal that holds no
// whole record (the torn end of an append a crash interrupted, or garbage) was never acknowledged:
// it is dropped, reported (droppedTail), and cut off before the next append. A bad line with a
// whole record after it is corruption: the start stops with a message naming the journal, and
// nothing is touched.
//
// Group commit: while one write is on its way to disk, the writes asked
// for meanwhile wait and go together in the next one; every caller is answered after the write
// that holds its change.
import { createHash } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import type { Adapter } from 'lowdb'
import { batch, DataFileError, replaceFileDurably, type Batch } from './durable-io.js'
import { COMPACTION, type Compaction } from './compaction.js'
import { nodeFileSystem, writeAll, type FileSystem, type OpenFile } from './file-system.js'
import { oneLine, parseJournal, type DroppedTail } from './journal-text.js'

export interface DataFileOptions {
  /** The file operations to use: the real file system unless a test injects faults. */
  readonly fileSystem?: FileSystem
  readonly compaction?: Partial<Compaction>
}

interface Job<R> {
  snapshot: boolean
  /** Fold the journal if it holds anything; always cut a tail left by a failed write. */
  compact: boolean
  readonly records: R[]
  readonly batch: Batch
}

interface Snapshot {
  readonly bytes: Buffer
  readonly id: string
  readonly records: number
}

export class JournaledJsonFile<T extends object, R> implements Adapter<T> {
  readonly file: string
  readonly journalFile: string
  readonly #tempFile: string
  /** Where the records live in T, e.g. "pets". */
  readonly #key: keyof T & string
  readonly #fs: FileSystem
  readonly #compaction: Compaction
  #data: T | undefined
  #pending: Job<R> | undefined
  #busy = false
  #snapshotRecords = 0
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
  /** Whether the journal file on disk is this snapshot's; if not, the next append starts a new one. */
  #journalStarted = false
  /** Where the journal's last whole record ends: everything before is durable, appends go here. */
  #journalBytes = 0
  #journalRecords = 0
  /** Set when the journal may hold bytes past #journalBytes (a failed or torn write): cut before any append. */
  #journalTail = false
  /** Open while appends keep coming; closed when the file goes idle, and dropped after a failed write. */
  #journal: OpenFile | undefined
  /** Set when a temporary snapshot may be on disk (its removal failed, or a crash left it). */
  #tempLeft = true
  /** The journal is folded when it holds this many records. */
  #foldAt = 0
  #droppedTail: DroppedTail | undefined
  #idleTimer: NodeJS.Timeout | undefined

  constructor(file: string, key: keyof T & string, options: DataFileOptions = {}) {
    this.file = file
    this.journalFile = `${file}.journal`
    this.#tempFile = join(dirname(file), `.${basename(file)}.tmp`)
    this.#key = key
    this.#fs = options.fileSystem ?? nodeFileSystem
    this.#compaction = { ...COMPACTION, ...options.compaction }
    this.#foldAt = this.#foldEvery()
  }

  /** What the last read() dropped from the end of the journal, if anything. */
  get droppedTail(): DroppedTail | undefined {
    return this.#droppedTail
  }

  async read(): Promise<T | null> {
    const text = (await this.#readFile(this.file))?.toString('utf8')
    if (text === undefined) return null
    this.#snapshotOnDisk = true
    let data: Record<string, unknown>
    try {
      data = JSON.parse(text) as Record<string, unknown>
    } catch (error) {
      throw new DataFileError(this.file, `is not valid JSON (${oneLine(error)}); it was left untouched`)
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return data as T
    const { journal: snapshotId, ...rest } = data
    const records = rest[this.#key]
    if (typeof snapshotId !== 'string' || !Array.isArray(records)) return rest as T

    const journalBytes = await this.#readFile(this.journalFile)
    const journal = journalBytes && parseJournal<R>(this.journalFile, journalBytes, snapshotId)
    this.#snapshotId = snapshotId
    this.#snapshotRecords = records.length
    // No journal, or one left from an older snapshot: the first append starts a new one.
    this.#needsSnapshot = false
    this.#foldAt = this.#foldEvery()
    if (journal === undefined) return rest as T
    for (const record of journal.records) records.push(record)
    this.#journalStarted = journal.started
    this.#journalBytes = journal.bytes
    this.#journalRecords = journal.records.length
    this.#journalTail = journal.dropped !== undefined
    this.#droppedTail = journal.dropped
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
    this.#run(job, this.#data)
      .then(job.batch.resolve, job.batch.reject)
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

  async #run(job: Job<R>, data: T): Promise<void> {
    // Serialised first, before any await: a snapshot holds nothing of the requests that come meanwhile.
    if (job.snapshot) return this.#writeWholeSnapshot(this.#serialise(data))
    // Without this job's records, which then go to the new journal: a snapshot that fails after
    // its rename must not leave records on disk that are answered as refused.
    const whole = this.#mustWriteSnapshot(job) ? this.#serialise(data, job.records) : undefined
    // Once this job's records are durable, this holds exactly what is on disk.
    const fold = !whole && this.#foldDue(job) ? this.#serialise(data) : undefined
    await this.#removeTempFile()
    if (whole) await this.#writeWholeSnapshot(whole)
    if (job.records.length > 0) await this.#append(job.records)
    else await this.#cutTail()
    if (fold) await this.#fold(fold)
  }

  #mustWriteSnapshot(job: Job<R>): boolean {
    return this.#needsSnapshot && (job.records.length > 0 || (job.compact && this.#diskBehind))
  }

  #foldDue(job: Job<R>): boolean {
    if (this.#needsSnapshot) return false
    const records = this.#journalRecords + job.records.length
    return records > 0 && (job.compact || records >= this.#foldAt)
  }

  #foldEvery(): number {
    const { afterRecords, growWithSnapshot } = this.#compaction
    return growWithSnapshot ? Math.max(afterRecords, this.#snapshotRecords) : afterRecords
  }

  /** Folds the journal once no write has come for a moment (the timer never keeps the process alive). */
  #compactWhenIdle(): void {
    if (this.#journalRecords < this.#compaction.idleAfterRecords) return
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(() => {
      if (this.#busy || this.#pending || this.#data === undefined) return // a write came: after it, the timer starts over
      // Only cutting a tail can fail here, and the next write meets that again and reports it.
      this.compact(this.#data).catch(() => undefined)
    }, this.#compaction.idleMs).unref()
  }

  async #append(records: readonly R[]): Promise<void> {
    let text = ''
    for (const record of records) text += `${JSON.stringify(record)}\n`
    try {
      await this.#cutTail()
      if (this.#journalStarted) await this.#appendToJournal(Buffer.from(text))
      else await this.#startJournal(text)
    } catch (error) {
      // Past its last whole record, the journal may now hold any part of these lines.
      this.#closeJournal()
      this.#journalTail = true
      // Cut at once, not only before the next append: a crash before that must not bring back
      // records that were refused.
      await this.#cutTail().catch(() => undefined)
      throw error
    }
    this.#journalRecords += records.length
  }

  async #appendToJournal(data: Buffer): Promise<void> {
    const journal = (this.#journal ??= await this.#fs.open(this.journalFile, 'r+'))
    await writeAll(journal, data, this.#journalBytes)
    await journal.datasync()
    this.#journalBytes += data.length
  }

  /**
   * The journal's first write: its header, naming the snapshot, goes with the first records, and
   * the new file is made durable in its directory before any of them is acknowledged.
   */
  async #startJournal(text: string): Promise<void> {
    const data = Buffer.from(`${JSON.stringify({ snapshot: this.#snapshotId })}\n${text}`)
    // Always a new file, so that the directory fsync makes a new change durable, never one whose
    // fsync already failed.
    await this.#fs.remove(this.journalFile)
    const journal = (this.#journal = await this.#fs.open(this.journalFile, 'w'))
    await writeAll(journal, data, 0)
    await journal.datasync()
    await this.#fs.syncDirectory(dirname(this.journalFile))
    this.#journalStarted = true
    this.#journalBytes = data.length
  }

  /** Removes, durably, what a failed or torn write may have left past the journal's last whole record. */
  async #cutTail(): Promise<void> {
    if (!this.#journalTail) return
    if (this.#journalStarted) {
      // Through a new descriptor: the one that failed is never used again.
      const journal = await this.#fs.open(this.journalFile, 'r+')
      try {
        await journal.truncate(this.#journalBytes)
        await journal.datasync()
      } catch (error) {
        await journal.close().catch(() => undefined)
        throw error
      }
      await journal.close()
    } else {
      // A journal whose start failed holds nothing acknowledged.
      await this.#fs.remove(this.journalFile)
      await this.#fs.syncDirectory(dirname(this.journalFile))
    }
    this.#journalTail = false
  }

  #closeJournal(): void {
    // Everything written through it is already synced (or failed, and is cut through another
    // descriptor): closing can finish in the background.
    this.#journal?.close().catch(() => undefined)
    this.#journal = undefined
  }

  async #writeWholeSnapshot(snapshot: Snapshot): Promise<void> {
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
  async #fold(snapshot: Snapshot): Promise<void> {
    try {
      if (await this.#roomFor(snapshot.bytes.length)) return await this.#writeSnapshot(snapshot)
    } catch {
      // Before the rename nothing changed; after it, #renamed made the next write a snapshot.
    }
    this.#foldAt = this.#journalRecords + this.#foldEvery()
  }

  async #roomFor(bytes: number): Promise<boolean> {
    const free = await this.#fs.freeBytes(dirname(this.file)).catch(() => 0)
    return free >= bytes + this.#compaction.headroomBytes
  }

  /** The snapshot of `data`, `without` some of its records. */
  #serialise(data: T, without: readonly R[] = []): Snapshot {
    const excluded = new Set(without)
    const all = (data as Record<string, unknown>)[this.#key]
    const kept =
      excluded.size > 0 && Array.isArray(all) ? { ...data, [this.#key]: all.filter((r) => !excluded.has(r)) } : data
    const body = JSON.stringify(kept)
    // The id follows from the previous one and the content: never the id of the snapshot it
    // replaces, and the same for the same data from scratch (the same SEED gives the same bytes).
    const id = createHash('sha256').update(`${this.#snapshotId}\n${body}`).digest('hex').slice(0, 16)
    const text = body === '{}' ? `{"journal":"${id}"}` : `${body.slice(0, -1)},"journal":"${id}"}`
    const records = (kept as Record<string, unknown>)[this.#key]
    return { bytes: Buffer.from(text), id, records: Array.isArray(records) ? records.length : 0 }
  }

  async #writeSnapshot(snapshot: Snapshot): Promise<void> {
    this.#closeJournal()
    // With no snapshot on disk, a journal there is a leftover that holds nothing acknowledged:
    // remove it first, so that it can never be taken for this snapshot's.
    if (!this.#snapshotOnDisk) await this.#fs.remove(this.journalFile)
    try {
      await replaceFileDurably(this.file, this.#tempFile, snapshot.bytes, {
        fs: this.#fs,
        renamed: () => this.#renamed(snapshot.id),
      })
    } catch (error) {
      this.#tempLeft = true
      throw error
    }
    this.#snapshotOnDisk = true
    this.#needsSnapshot = false
    this.#diskBehind = false
    this.#snapshotRecords = snapshot.records
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
    this.#needsSnapshot = true
    this.#diskBehind = true
    this.#journalStarted = false
    this.#journalTail = false
    this.#journalBytes = 0
    this.#journalRecords = 0
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
