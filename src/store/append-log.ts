// The data file's append log on disk: a header line naming its image, then one record per line,
// appended and fsynced. What it promises: every byte before `bytes` is a whole record, durable; a
// failed or torn append leaves bytes past it, which are cut off at once and again before the next
// append, through a new descriptor (the one that failed is never trusted again: after a failed
// fsync, Linux may drop the unwritten pages and report the next fsync as a success).
import { dirname } from 'node:path'
import { writeAll, type FileSystem, type OpenFile } from './file-system.js'
import type { ReadAppendLog } from './append-log-text.js'

/**
 * How long an idle append log keeps its descriptor: a test's writes come close together (a create,
 * then its reset), and the next one then needs no open(2) and close(2) around it.
 */
const KEEP_OPEN_MS = 100

export class AppendLog {
  readonly path: string
  readonly #fs: FileSystem
  #started = false
  /** Where the last whole record ends: everything before is durable, appends go here. */
  #bytes = 0
  #records = 0
  /** Set when the file may hold bytes past #bytes (a failed or torn write): cut before any append. */
  #tail = false
  /** Open while appends keep coming; closed when the file goes idle, and dropped after a failed write. */
  #handle: OpenFile | undefined
  #closeTimer: NodeJS.Timeout | undefined
  /** Set when no file can be at `path` (the store's files are known absent): a start need not remove one. */
  #absent = false

  constructor(path: string, fs: FileSystem) {
    this.path = path
    this.#fs = fs
  }

  /** Whether the file on disk is the current image's append log (else the next append starts one). */
  get started(): boolean {
    return this.#started
  }

  /** Where its last whole record ends: its size, but for a tail a failed write left. */
  get bytes(): number {
    return this.#bytes
  }

  /** Records since its image. */
  get records(): number {
    return this.#records
  }

  /** The append log as a start read it back: where its whole records end, and whether a tail follows. */
  load(read: ReadAppendLog<unknown>): void {
    this.#started = read.started
    this.#bytes = read.bytes
    this.#records = read.count
    this.#tail = read.dropped !== undefined
  }

  /** The store's files are known absent: nothing is at `path` until the first append starts the append log. */
  assumeAbsent(): void {
    this.#absent = true
  }

  /** A new image took over: the file on disk (if any) is stale, the next append starts anew. */
  restart(): void {
    this.#started = false
    this.#tail = false
    this.#bytes = 0
    this.#records = 0
  }

  /** Appends records, durably; on failure nothing of them stays past the last whole record. */
  async append(imageId: string, records: readonly unknown[]): Promise<void> {
    let text = ''
    for (const record of records) text += `${JSON.stringify(record)}\n`
    clearTimeout(this.#closeTimer)
    try {
      await this.cutTail()
      if (this.#started) await this.#appendToFile(Buffer.from(text))
      else await this.#start(imageId, text)
    } catch (error) {
      // Past its last whole record, the file may now hold any part of these lines.
      this.close()
      this.#tail = true
      // Cut at once, not only before the next append: a crash before that must not bring back
      // records that were refused.
      await this.cutTail().catch(() => undefined)
      throw error
    }
    this.#records += records.length
  }

  /** Removes, durably, what a failed or torn write may have left past the last whole record. */
  async cutTail(): Promise<void> {
    if (!this.#tail) return
    if (this.#started) {
      // Through a new descriptor: the one that failed is never used again.
      const handle = await this.#fs.open(this.path, 'r+')
      try {
        await handle.truncate(this.#bytes)
        await handle.datasync()
      } catch (error) {
        await handle.close().catch(() => undefined)
        throw error
      }
      await handle.close()
    } else {
      // An append log whose start failed holds nothing acknowledged.
      await this.#fs.remove(this.path)
      await this.#fs.syncDirectory(dirname(this.path))
    }
    this.#tail = false
  }

  /** Closes the file once no append has come for a moment (the timer never keeps the process alive). */
  closeWhenIdle(): void {
    clearTimeout(this.#closeTimer)
    if (this.#handle !== undefined) this.#closeTimer = setTimeout(() => this.close(), KEEP_OPEN_MS).unref()
  }

  close(): void {
    clearTimeout(this.#closeTimer)
    // Everything written through it is already synced (or failed, and is cut through another
    // descriptor): closing can finish in the background.
    this.#handle?.close().catch(() => undefined)
    this.#handle = undefined
  }

  async #appendToFile(data: Buffer): Promise<void> {
    const handle = (this.#handle ??= await this.#fs.open(this.path, 'r+'))
    await writeAll(handle, data, this.#bytes)
    await handle.datasync()
    this.#bytes += data.length
  }

  /**
   * The append log's first write: its header, naming the image, goes with the first records, and
   * the new file is made durable in its directory before any of them is acknowledged.
   */
  async #start(imageId: string, text: string): Promise<void> {
    // "snapshot": the header's name for the image since the first version.
    const data = Buffer.from(`${JSON.stringify({ snapshot: imageId })}\n${text}`)
    // Always a new file, so that the directory fsync makes a new change durable, never one whose
    // fsync already failed (a file known absent is new; a retry after a failure removes it).
    if (!this.#absent) await this.#fs.remove(this.path)
    this.#absent = false
    const handle = (this.#handle = await this.#fs.open(this.path, 'w'))
    await writeAll(handle, data, 0)
    // The file's data and its name in the directory: two flushes, neither waiting for the other.
    const synced = await Promise.allSettled([handle.datasync(), this.#fs.syncDirectory(dirname(this.path))])
    for (const outcome of synced) if (outcome.status === 'rejected') throw outcome.reason
    this.#started = true
    this.#bytes = data.length
  }
}
