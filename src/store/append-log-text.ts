// The append log as text: a header line naming its image, then one record per line ending in a
// newline. An end that holds no whole record (an append a crash cut short) was never acknowledged:
// it is dropped and reported. A bad line with a whole record after it is corruption: the start
// stops, naming the append log, and touches nothing.
import { DataFileError } from './errors.js'

/** What a start dropped from the end of the append log: bytes that held no whole record. */
export interface DroppedTail {
  readonly file: string
  readonly bytes: number
  /** Whole records of the append log kept before them. */
  readonly keptRecords: number
}

/** An append log as a start reads it back. */
export interface ReadAppendLog<R> {
  /** The records a start must replay: those from the last one that starts over (a reset) on. */
  readonly records: R[]
  /** Every whole record of the append log, those before that reset included. */
  readonly count: number
  /** Whether the append log has its header (else its first append never finished). */
  readonly started: boolean
  /** Where its last whole record ends. */
  readonly bytes: number
  readonly dropped: DroppedTail | undefined
}

/**
 * The records of an append log read in chunks, when its header names `imageId`; undefined for a stale
 * append log. The records before the last one that `startsOver` are dropped as it goes.
 */
export async function readAppendLog<R>(
  logFile: string,
  chunks: AsyncIterable<Buffer>,
  imageId: string,
  startsOver: (record: R) => boolean = () => false,
): Promise<ReadAppendLog<R> | undefined> {
  const size = { bytes: 0 }
  let records: R[] = []
  let count = 0
  let end = 0
  let header = true
  /** The first line that is not a record, and why: the torn end, unless a whole record follows it. */
  let bad: { line: number; problem: Error } | undefined
  let line = 0
  for await (const batch of wholeLines(chunks, size))
    for (const whole of batch) {
      line++
      if (header) {
        header = false
        let headerId: unknown
        try {
          headerId = (JSON.parse(whole.text ?? '') as { snapshot?: unknown })?.snapshot
        } catch {
          throw new DataFileError(logFile, 'has a first line that is not an append-log header; it was left untouched')
        }
        // An append log left from an older image: that image holds all of it.
        if (headerId !== imageId) return undefined
        end = whole.end
        continue
      }
      const record = whole.text === undefined ? new Error('a line longer than any record') : parseRecord(whole.text)
      if (bad !== undefined) {
        if (record instanceof Error) continue
        throw new DataFileError(
          logFile,
          `has an invalid line ${bad.line} (${oneLine(bad.problem)}) before whole records; it was left untouched`,
        )
      }
      if (record instanceof Error) {
        bad = { line, problem: record }
        continue
      }
      if (startsOver(record as R)) records = []
      records.push(record as R)
      count++
      end = whole.end
    }
  // Not even a whole header: an append log whose first append a crash cut short.
  if (header) {
    const dropped = size.bytes > 0 ? { file: logFile, bytes: size.bytes, keptRecords: 0 } : undefined
    return { records: [], count: 0, started: false, bytes: 0, dropped }
  }
  const dropped = size.bytes > end ? { file: logFile, bytes: size.bytes - end, keptRecords: count } : undefined
  return { records, count, started: true, bytes: end, dropped }
}

/** A line longer than this holds no record (a record is a pet of at most a request body): it is not kept whole. */
const MAX_LINE_BYTES = 64 * 1024 * 1024

/**
 * The lines of `chunks` that end in a newline, each with the offset just past it, in batches (those
 * each chunk ends); `size.bytes` counts every byte read. A line past MAX_LINE_BYTES comes without
 * its text.
 */
export async function* wholeLines(
  chunks: AsyncIterable<Buffer>,
  size: { bytes: number },
): AsyncGenerator<Array<{ text: string | undefined; end: number }>> {
  /** The start of a line that the chunks so far have not ended, or undefined once it is too long to keep. */
  let carried: Buffer[] | undefined = []
  let carriedBytes = 0
  for await (const chunk of chunks) {
    const offset = size.bytes
    size.bytes += chunk.length
    const batch: Array<{ text: string | undefined; end: number }> = []
    let start = 0
    // A newline byte never occurs inside a multi-byte UTF-8 character: splitting bytes is safe.
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline)
      const text =
        carried === undefined || carriedBytes + piece.length > MAX_LINE_BYTES
          ? undefined
          : (carried.length === 0 ? piece : Buffer.concat([...carried, piece])).toString('utf8')
      batch.push({ text, end: offset + newline + 1 })
      carried = []
      carriedBytes = 0
      start = newline + 1
    }
    if (carried !== undefined && start < chunk.length) {
      carriedBytes += chunk.length - start
      // A copy: the chunk's memory may be reused by the reader.
      carried = carriedBytes > MAX_LINE_BYTES ? undefined : [...carried, Buffer.from(chunk.subarray(start))]
    }
    if (batch.length > 0) yield batch
  }
}

/** An append log line's record (a JSON object), or why it is not one. */
function parseRecord(line: string): unknown {
  try {
    const value: unknown = JSON.parse(line)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
    return new Error('not a JSON object')
  } catch (error) {
    return error as Error
  }
}

/** An error's message on one line: JSON.parse quotes the text it failed on, newlines included. */
export function oneLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).replace(/\s+/g, ' ')
}

/** How the store describes a dropped append log tail, in the log and the start banner. */
export function describeDroppedTail({ file, bytes, keptRecords }: DroppedTail): string {
  return `dropped the last ${bytes} bytes of ${file}, which held no whole record (an append that never finished, never acknowledged); kept the ${keptRecords} records before them`
}
