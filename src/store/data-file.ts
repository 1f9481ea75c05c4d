// A data file: an image (db.json, its id in "journal") plus an append log (db.json.journal, a header
// {"snapshot": <image id>} then one record per line), behind lowdb's Adapter, so that a create costs
// one fsynced append, not a rewrite. A full write or a fold writes a new image under a new id; an
// append log naming another image is stale. A failed write changes nothing that is read back.
import { dirname } from 'node:path'
import type { Adapter } from 'lowdb'
import { FoldPolicy, type Compaction } from './compaction.js'
import { replaceFileDurably, type FilesOnDisk } from './durable-io.js'
import { nodeFileSystem, type FileSystem } from './file-system.js'
import { appendLogOf, tempOf } from './files.js'
import { GroupCommit } from './group-commit.js'
import { imageText, type ImageText } from './image-text.js'
import { AppendLog } from './append-log.js'
import type { DroppedTail, ReadAppendLog } from './append-log-text.js'
import { readImage, readAppendLogOf, type ReadOptions } from './read-data-file.js'
import type { TempFiles } from './temp-files.js'

export type DataFileOptions = ReadOptions & {
  readonly compaction?: Partial<Compaction>
  /** Told how each write went, to sweep the temporary files failures left (openStores sets it). */
  readonly temps?: TempFiles | undefined
}

export interface Layout<T, R> {
  /** How an append log's records make the data again (default: each is added). */
  readonly replay?: (data: T, records: readonly R[]) => Promise<T>
  /** The data without records not yet durable: an image must not hold them. */
  readonly without?: (data: T, records: ReadonlySet<unknown>) => T
  /** Whether a record replaces all the data before it (a reset): a start keeps none before it. */
  readonly startsOver?: (record: R) => boolean
  /** A store with no image: its append log's header names `id`, `data` is what it starts as (then `from`, a reset, replayed). */
  readonly unwritten?: { readonly id: string; readonly data: () => Promise<T>; readonly from?: R | undefined }
}

/** One write: `records` added (or, `replaces`, a reset); a whole `image`; a fold if it is due or `compact`. */
interface Job<R> {
  image: boolean
  compact: boolean
  replaces: boolean
  readonly records: R[]
}

export class DataFile<T extends object, R> implements Adapter<T> {
  readonly file: string
  readonly durable = true
  readonly #key: keyof T & string
  readonly #fs: FileSystem
  readonly #folds: FoldPolicy
  readonly #options: DataFileOptions
  readonly #layout: Layout<T, R>
  readonly #log: AppendLog
  /** The image on disk: its id ('' for none, or one naming no append log) and size. */
  #image = { id: '', onDisk: false, bytes: 0 }
  /** No image names the append log (or one is in doubt): the next write is an image. */
  #needsImage = true
  /** A full write failed or left the directory in doubt: even a stop writes an image. */
  #diskBehind = false
  /** A temporary image may be on disk (a crash or a failed removal left it). */
  #tempLeft = true
  /** Written first when the append log starts (Layout.unwritten.from), until an image holds it. */
  #startsWith: R | undefined
  /** The data as the last write asked for it. */
  #data: T | undefined
  readonly #writes = new GroupCommit<Job<R>>(
    () => ({ image: false, compact: false, replaces: false, records: [] }),
    (job) => this.#run(job, this.#data as T).then(() => this.#options.temps?.succeeded()),
    () => {
      this.#log.closeWhenIdle()
      this.#folds.whenIdle(this.#log.records, () => {
        if (this.#writes.busy || this.#data === undefined) return
        // Only cutting a tail can fail here, and the next write meets that again and reports it.
        this.compact(this.#data).catch(() => undefined)
      })
    },
  )
  #droppedTail: DroppedTail | undefined
  /** Which of its files may be on disk: an image unless a read found none (or was skipped: readAbsent). */
  #mayHave: FilesOnDisk = 'image'

  constructor(file: string, key: keyof T & string, options: DataFileOptions = {}, layout: Layout<T, R> = {}) {
    this.file = file
    this.#key = key
    this.#fs = options.fileSystem ?? nodeFileSystem
    this.#folds = new FoldPolicy(options.compaction)
    this.#options = options
    this.#layout = layout
    this.#log = new AppendLog(appendLogOf(file), this.#fs)
  }

  /** What read() dropped from the end of the append log. */
  get droppedTail(): DroppedTail | undefined {
    return this.#droppedTail
  }

  get mayHave(): FilesOnDisk {
    return this.#mayHave
  }

  async read(): Promise<T | null> {
    const found = await readImage(this.file, this.#key, this.#options)
    if (found === undefined) return this.#readUnwritten()
    this.#image = { ...this.#image, onDisk: true, bytes: found.bytes }
    if (typeof found.data !== 'object' || found.data === null || Array.isArray(found.data)) return found.data as T
    const { journal: id, ...rest } = found.data as Record<string, unknown>
    const records = rest[this.#key]
    if (typeof id !== 'string' || !Array.isArray(records)) return rest as T
    this.#image.id = id
    this.#needsImage = false
    this.#folds.imaged(records.length)
    const log = await this.#readAppendLog(id)
    return log === undefined ? (rest as T) : this.#replay(rest as T, log)
  }

  /** read() where the caller knows no file is there: nothing is read, the first write starts them. */
  readAbsent(): null {
    this.#startUnwritten()
    this.#mayHave = 'none'
    this.#tempLeft = false
    this.#log.assumeAbsent()
    return null
  }

  /** Once every write asked for has settled; no fold after (the store is being removed). */
  async retire(): Promise<void> {
    this.#folds.stop()
    await this.#writes.settled()
    this.#log.close()
  }

  /** Kept after all (its removal failed): folds on a timer again. */
  reinstate(): void {
    this.#folds.resume()
  }

  /** lowdb's write: a whole new image. */
  write(data: T): Promise<void> {
    return this.#request(data, (job) => (job.image = true))
  }

  /** Records already added to `data`; resolves once they are durable. */
  append(data: T, records: readonly R[]): Promise<void> {
    return this.#request(data, (job) => job.records.push(...records))
  }

  /** A record that replaced all of `data` (a reset): one line, or a whole image where appends cannot go on. */
  replaceWith(data: T, record: R): Promise<void> {
    return this.#request(data, (job) => {
      job.records.push(record)
      job.replaces = true
    })
  }

  /** Waits for the writes in flight, cuts a failed one's tail, and folds the append log if there is room. */
  compact(data: T): Promise<void> {
    return this.#request(data, (job) => (job.compact = true))
  }

  #startUnwritten(): Layout<T, R>['unwritten'] {
    const unwritten = this.#layout.unwritten
    if (unwritten === undefined) return undefined
    this.#image.id = unwritten.id
    this.#needsImage = false
    this.#startsWith = unwritten.from
    return unwritten
  }

  async #readUnwritten(): Promise<T | null> {
    this.#mayHave = 'append log'
    const unwritten = this.#startUnwritten()
    if (unwritten === undefined) return null
    const log = await this.#readAppendLog(unwritten.id)
    if (log?.started) {
      this.#startsWith = undefined
      return this.#replay(await unwritten.data(), log)
    }
    return unwritten.from === undefined ? null : this.#apply(await unwritten.data(), [unwritten.from])
  }

  #readAppendLog(imageId: string): Promise<ReadAppendLog<R> | undefined> {
    return readAppendLogOf<R>(this.#log.path, imageId, this.#options, this.#layout.startsOver)
  }

  async #replay(data: T, log: ReadAppendLog<R>): Promise<T> {
    this.#log.load(log)
    this.#droppedTail = log.dropped
    return this.#apply(data, log.records)
  }

  async #apply(data: T, records: readonly R[]): Promise<T> {
    if (this.#layout.replay) return this.#layout.replay(data, records)
    ;((data as Record<string, unknown>)[this.#key] as R[]).push(...records)
    return data
  }

  #request(data: T, add: (job: Job<R>) => void): Promise<void> {
    this.#data = data
    return this.#writes.request(add)
  }

  async #run(job: Job<R>, data: T): Promise<void> {
    if ((job.image || job.records.length > 0) && this.#mayHave === 'none') this.#mayHave = 'append log'
    // Serialised before any await. A reset's data cannot be imaged without its records: then the image is the whole job.
    if (job.image || (job.replaces && this.#mustWriteImage(job))) return this.#writeWholeImage(this.#serialise(data))
    // Without this job's records, which go to the new append log: an image must not hold records answered as refused.
    const whole = this.#mustWriteImage(job) ? this.#serialise(data, job.records) : undefined
    const foldDue = !whole && !this.#needsImage && this.#folds.due(this.#log.records + job.records.length, job.compact)
    const fold = foldDue ? this.#serialise(data) : undefined
    await this.#removeTempFile()
    if (whole) await this.#writeWholeImage(whole)
    if (job.records.length > 0) {
      const first = this.#log.started || this.#startsWith === undefined ? [] : [this.#startsWith]
      await this.#log.append(this.#image.id, [...first, ...job.records])
      this.#startsWith = undefined
    } else await this.#log.cutTail()
    if (fold) await this.#fold(fold)
  }

  #mustWriteImage(job: Job<R>): boolean {
    return this.#needsImage && (job.records.length > 0 || (job.compact && this.#diskBehind))
  }

  async #writeWholeImage(image: ImageText): Promise<void> {
    await this.#removeTempFile()
    try {
      await this.#writeImage(image)
    } catch (error) {
      // Memory holds what the disk may not (callers undo only added records): write it all again.
      this.#needsImage = true
      this.#diskBehind = true
      throw error
    }
  }

  /** A fold that finds no room, or fails, is no error: the append log holds everything and goes on. */
  async #fold(image: ImageText): Promise<void> {
    try {
      // The new image is at most about the old one and the append log.
      const bytes = this.#image.bytes + this.#log.bytes
      if (await this.#folds.roomFor(this.#fs, dirname(this.file), bytes)) return await this.#writeImage(image)
    } catch {
      // Before the rename nothing changed; after it, #renamed made the next write an image.
    }
    this.#folds.postpone(this.#log.records)
  }

  /** The image of `data` without some records: what it holds taken now, its text made as it is written. */
  #serialise(data: T, without: readonly R[] = []): ImageText {
    const left = new Set<unknown>(without)
    const { [this.#key]: all, ...members } = (this.#layout.without?.(data, left) ?? data) as Record<string, unknown>
    const records = Array.isArray(all) ? all.filter((r) => !left.has(r)) : []
    return imageText(members, this.#key, records, this.#image.id)
  }

  async #writeImage(image: ImageText): Promise<void> {
    this.#mayHave = 'image'
    this.#log.close()
    // With no image on disk, an append log there holds nothing acknowledged (but an unwritten store's):
    // removed first, so that it is never taken for the new image's.
    if (!this.#image.onDisk && this.#image.id !== this.#layout.unwritten?.id) await this.#fs.remove(this.#log.path)
    try {
      await replaceFileDurably(this.file, tempOf(this.file), image.chunks, {
        fs: this.#fs,
        temps: this.#options.temps,
        renamed: () => this.#renamed(image.id()),
      })
    } catch (error) {
      this.#tempLeft = true
      throw error
    }
    this.#image = { id: this.#image.id, onDisk: true, bytes: image.bytes() }
    this.#needsImage = false
    this.#diskBehind = false
    this.#folds.imaged(image.records)
    // The old append log is stale now even if this removal fails; the first append starts the new one.
    await this.#fs.remove(this.#log.path).catch(() => undefined)
  }

  /** Renamed: until the directory fsync succeeds, which image a crash leaves is in doubt. */
  #renamed(id: string): void {
    this.#image.id = id
    this.#startsWith = undefined
    this.#needsImage = true
    this.#diskBehind = true
    this.#log.restart()
  }

  async #removeTempFile(): Promise<void> {
    if (!this.#tempLeft) return
    await this.#fs.remove(tempOf(this.file)).then(
      () => (this.#tempLeft = false),
      () => this.#options.temps?.failed(),
    )
  }
}
