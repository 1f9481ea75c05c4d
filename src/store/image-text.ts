// A data file's image as text: one JSON object, one record per line, so that it is made and read
// in chunks, never as one string or buffer (a string cannot pass 512 MiB, a buffer 2 GiB):
//
//   {"source":{…},"pets":[
//   {"id":1,…},
//   {"id":2,…}
//   ],"journal":"<id>"}
//
// Still one JSON document. A file in another layout (a user's own) is read whole.
import { createHash } from 'node:crypto'
import { wholeLines } from './append-log-text.js'

/** The text is made in pieces of about this many characters. */
const CHUNK_CHARS = 1024 * 1024

/** An image to write: its bytes made as they are written, and its id once they all are. */
export interface ImageText {
  readonly chunks: Iterable<Buffer>
  /** The id, from the previous one and the content: known once every chunk is made. */
  id(): string
  /** The bytes written, known once every chunk is made. */
  bytes(): number
  readonly records: number
}

/**
 * The image of `members` (the data's other, small members) and `records` (under `key`). Its id
 * hashes `previousId` and the content: never the id it replaces, the same for the same data.
 */
export function imageText(members: object, key: string, records: readonly unknown[], previousId: string): ImageText {
  const hash = createHash('sha256').update(`${previousId}\n`)
  let id: string | undefined
  let bytes = 0
  function* chunks(): Generator<Buffer> {
    const head = JSON.stringify(members).slice(0, -1)
    let text = `${head}${head === '{' ? '' : ','}${JSON.stringify(key)}:[\n`
    // Every piece but the last, which holds the id, is part of what the id is made from.
    const emit = (hashed = true): Buffer => {
      if (hashed) hash.update(text)
      const chunk = Buffer.from(text)
      bytes += chunk.length
      text = ''
      return chunk
    }
    for (let i = 0; i < records.length; i++) {
      text += `${JSON.stringify(records[i])}${i < records.length - 1 ? ',' : ''}\n`
      if (text.length >= CHUNK_CHARS) yield emit()
    }
    text += ']'
    yield emit()
    id = hash.digest('hex').slice(0, 16)
    text = `,"journal":"${id}"}\n`
    yield emit(false)
  }
  const made = <V>(value: V | undefined): V => {
    if (value === undefined) throw new Error('the image is not made yet')
    return value
  }
  return {
    chunks: chunks(),
    id: () => made(id),
    bytes: () => {
      made(id)
      return bytes
    },
    records: records.length,
  }
}

/**
 * The image read from `chunks` line by line when it is in the layout above; undefined when it is
 * not, for the caller to read it whole. `size.bytes` counts what was read.
 */
export async function readImageText(
  key: string,
  chunks: AsyncIterable<Buffer>,
  size: { bytes: number },
): Promise<Record<string, unknown> | undefined> {
  const lines = wholeLines(chunks, size)
  try {
    const first = await lines.next()
    const [opening, ...rest] = first.done ? [] : first.value
    if (opening?.text?.endsWith(`${JSON.stringify(key)}:[`) !== true) return undefined
    const data = JSON.parse(`${opening.text}]}`) as Record<string, unknown>
    const records: unknown[] = []
    let closed = false
    // The record lines of a batch are parsed as one array: one JSON.parse per chunk, not per pet.
    const parseRecords = (texts: string[]): void => {
      if (texts.length > 0) for (const record of JSON.parse(`[${texts.join(',')}]`) as unknown[]) records.push(record)
    }
    const readBatch = (batch: ReadonlyArray<{ text: string | undefined }>): boolean => {
      const texts: string[] = []
      for (const { text } of batch) {
        if (text === undefined) return false
        if (closed) {
          if (text.trim() !== '') return false
        } else if (text.startsWith(']')) {
          parseRecords(texts.splice(0))
          // The closing line: the members after the records, `],"journal":"<id>"}`.
          Object.assign(data, JSON.parse(`{${text.slice(text.startsWith('],') ? 2 : 1)}`))
          closed = true
        } else texts.push(text.endsWith(',') ? text.slice(0, -1) : text)
      }
      parseRecords(texts)
      return true
    }
    if (!readBatch(rest)) return undefined
    for await (const batch of lines) if (!readBatch(batch)) return undefined
    if (!closed) return undefined
    data[key] = records
    return data
  } catch (error) {
    if (error instanceof SyntaxError) return undefined
    throw error
  } finally {
    await lines.return(undefined)
  }
}
