// The journal as text: a header line naming its snapshot, then one record per line. Only lines
// ending in a newline can be records. The end of the journal that holds no whole record (the torn
// end of an append a crash interrupted, or garbage) was never acknowledged: it is dropped and
// reported. A bad line with a whole record after it is corruption: the start stops with a message
// naming the journal, and nothing is touched.
import { DataFileError } from './durable-io.js'

/** What a start dropped from the end of the journal: bytes that held no whole record. */
export interface DroppedTail {
  readonly file: string
  readonly bytes: number
  /** Whole records of the journal kept before them. */
  readonly keptRecords: number
}

/** The records of a journal's bytes, when its header names `snapshotId`; undefined for a stale journal. */
export function parseJournal<R>(
  journalFile: string,
  bytes: Buffer,
  snapshotId: string,
): { records: R[]; started: boolean; bytes: number; dropped: DroppedTail | undefined } | undefined {
  const lines = wholeLines(bytes)
  const header = lines[0]
  if (header === undefined) {
    // Not even a whole header: a journal whose first append a crash cut short.
    const dropped = bytes.length > 0 ? { file: journalFile, bytes: bytes.length, keptRecords: 0 } : undefined
    return { records: [], started: false, bytes: 0, dropped }
  }
  let headerId: unknown
  try {
    headerId = (JSON.parse(header.text) as { snapshot?: unknown })?.snapshot
  } catch {
    throw new DataFileError(journalFile, 'has a first line that is not a journal header; it was left untouched')
  }
  // A journal left from an older snapshot: that snapshot holds all of it.
  if (headerId !== snapshotId) return undefined
  const records: R[] = []
  let end = header.end
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as { text: string; end: number }
    const record = parseRecord(line.text)
    if (record instanceof Error) {
      checkOnlyTailFollows(journalFile, lines, i, record)
      break
    }
    records.push(record as R)
    end = line.end
  }
  const dropped =
    bytes.length > end ? { file: journalFile, bytes: bytes.length - end, keptRecords: records.length } : undefined
  return { records, started: true, bytes: end, dropped }
}

/** A bad line is the torn end of the journal only if no whole record follows it; else it is corruption. */
function checkOnlyTailFollows(
  journalFile: string,
  lines: ReadonlyArray<{ text: string }>,
  bad: number,
  problem: Error,
): void {
  for (let i = bad + 1; i < lines.length; i++) {
    if (parseRecord((lines[i] as { text: string }).text) instanceof Error) continue
    throw new DataFileError(
      journalFile,
      `has an invalid line ${bad + 1} (${oneLine(problem)}) before whole records; it was left untouched`,
    )
  }
}

/** The lines of `bytes` that end in a newline, with the offset just past each. */
function wholeLines(bytes: Buffer): Array<{ text: string; end: number }> {
  const lines: Array<{ text: string; end: number }> = []
  // A newline byte never occurs inside a multi-byte UTF-8 character: splitting bytes is safe.
  for (let start = 0, newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    lines.push({ text: bytes.toString('utf8', start, newline), end: newline + 1 })
    start = newline + 1
  }
  return lines
}

/** A journal line's record (a JSON object), or why it is not one. */
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

/** How the store describes a dropped journal tail, in the log and the start banner. */
export function describeDroppedTail({ file, bytes, keptRecords }: DroppedTail): string {
  return `dropped the last ${bytes} bytes of ${file}, which held no whole record (an append that never finished, never acknowledged); kept the ${keptRecords} records before them`
}
