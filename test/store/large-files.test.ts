// A data file is read in chunks, line by line, never whole: an append log split anywhere between
// chunks reads back the same, and a history past 2 GiB (more than one buffer can hold) starts,
// serves what it ends with, and is folded into a small image by the next compaction. An export
// of every pet is sent in pieces too.
import { copyFile, open, readFile, stat, writeFile } from 'node:fs/promises'
import t, { type Test } from 'tap'
import { ADMIN_AUTH, startControlSandbox } from '../support/control.js'
import { startTestSandbox, tempDir } from '../support/sandbox.js'
import type { Sandbox } from '../../src/sandbox.js'
import { join } from 'node:path'

// Writing and reading 2 GiB takes a minute or more on a busy machine.
t.setTimeout(10 * 60_000)

interface Image {
  /** The data file's data source, which a reset line names. */
  readonly source: object
  /** Its id, which the append log's header repeats (the member's name since the first version). */
  readonly journal: string
}

/** A data file with an image and no append log: a sandbox started on it and stopped (a clean stop folds everything). */
async function freshDataFile(t: Test, env: Record<string, string> = {}) {
  const dataFile = join(await tempDir(t), 'db.json')
  const sandbox = await startTestSandbox(t, { DATA_FILE: dataFile, ...env })
  await sandbox.close()
  return { dataFile, image: JSON.parse(await readFile(dataFile, 'utf8')) as Image }
}

const pet = (id: number, name: string) => ({ id, name, categoryId: 1, status: 'sold' })
const line = (record: object) => `${JSON.stringify(record)}\n`

async function ownNames(sandbox: Sandbox): Promise<string[]> {
  return sandbox.store
    .all()
    .filter((p) => p.id > 60)
    .map((p) => p.name)
}

t.test('an append log read 7 bytes at a time reads back as it does whole, torn end and all', async (t) => {
  const { dataFile, image } = await freshDataFile(t)
  const names = ['Ärger', '🐈 Cat', 'Plain', '猫'.repeat(40)]
  const appendLog =
    line({ snapshot: image.journal }) +
    line(pet(61, 'Gone')) +
    line({ reset: image.source }) +
    names.map((name, i) => line(pet(61 + i, name))).join('') +
    '{"id":99,"na'
  for (const readChunkBytes of [7, 1024 * 1024]) {
    // A copy each: a stop folds the append log.
    const copy = join(await tempDir(t), 'db.json')
    await copyFile(dataFile, copy)
    await writeFile(`${copy}.journal`, appendLog)
    const sandbox = await startTestSandbox(t, { DATA_FILE: copy }, {}, { readChunkBytes })
    t.same(await ownNames(sandbox), names, `${readChunkBytes} bytes at a time: the pets after the reset`)
    t.match(sandbox.dataDescription, /dropped the last 12 bytes .*kept the 6 records before them/)
  }
})

t.test(
  'an image is written one pet per line and read back in chunks; one in another layout is read whole',
  async (t) => {
    const { dataFile } = await freshDataFile(t)
    const sandbox = await startTestSandbox(t, { DATA_FILE: dataFile }, {}, { readChunkBytes: 7 })
    for (const name of ['Ärger', '🐈 Cat']) await sandbox.store.add({ name, categoryId: 2 })
    await sandbox.close()
    const text = await readFile(dataFile, 'utf8')
    const lines = text.split('\n')
    t.match(lines[0], /"pets":\[$/, 'the first line opens the pets')
    t.match(lines[1], /^\{"id":1,"name":"Ginger",[^\n]*\},$/, 'one pet per line')
    t.match(lines.at(-2), /^\],"journal":"[0-9a-f]{16}"\}$/, 'the last line closes them and names the append log')
    t.equal(JSON.parse(text).pets.length, 62, 'still one JSON document')

    const again = await startTestSandbox(t, { DATA_FILE: dataFile }, {}, { readChunkBytes: 7 })
    t.same(await ownNames(again), ['Ärger', '🐈 Cat'], 'read back 7 bytes at a time')
    await again.close()

    // A file of the user's own, pets over several lines each: read whole.
    const { pets } = JSON.parse(text) as { pets: unknown[] }
    for (const own of [JSON.stringify({ pets }, null, 2), `{"pets":[\n${JSON.stringify(pets, null, 2).slice(1)}}`]) {
      await writeFile(dataFile, own)
      const mine = await startTestSandbox(t, { DATA_FILE: dataFile }, {}, { readChunkBytes: 7 })
      t.equal(mine.store.size, 62, 'a file in another layout is read whole')
      await mine.close()
    }
  },
)

t.test('an append log past 2 GiB written under MAX_STORE_BYTES starts, and the next compaction folds it', async (t) => {
  const settings = { MAX_STORE_BYTES: String(2 * 1024 * 1024) }
  const { dataFile, image } = await freshDataFile(t, settings)
  // A history a sandbox with these bounds can write: 1,000 pets of 1 KiB at most before each reset.
  const name = 'n'.repeat(1000)
  const segment = Buffer.from(
    Array.from({ length: 1000 }, (_, i) => line(pet(61 + i, name))).join('') + line({ reset: image.source }),
  )
  const appendLog = await open(`${dataFile}.journal`, 'w')
  let size = 0
  try {
    size += (await appendLog.write(line({ snapshot: image.journal }))).bytesWritten
    while (size <= 2 ** 31) size += (await appendLog.write(segment)).bytesWritten
    size += (await appendLog.write(['Last 1', 'Last 2'].map((last, i) => line(pet(61 + i, last))).join('')))
      .bytesWritten
  } finally {
    await appendLog.close()
  }
  t.ok((await stat(`${dataFile}.journal`)).size > 2 ** 31, `the append log holds ${size} bytes, past 2 GiB`)

  const sandbox = await startTestSandbox(t, { DATA_FILE: dataFile, ...settings })
  t.same(await ownNames(sandbox), ['Last 1', 'Last 2'], 'it serves what the history ends with')
  t.equal(sandbox.store.size, 62, 'and the initial pets the last reset went back to')
  await sandbox.close()
  await t.rejects(stat(`${dataFile}.journal`), { code: 'ENOENT' }, 'the stop folded the append log away')
  t.ok((await stat(dataFile)).size < 1024 * 1024, 'into a small image')

  const again = await startTestSandbox(t, { DATA_FILE: dataFile, ...settings })
  t.same(await ownNames(again), ['Last 1', 'Last 2'], 'a restart serves the same pets')
})

t.test('an export of every pet is sent in pieces, not built as one string', async (t) => {
  const sandbox = await startControlSandbox(t)
  // About 350 KB of JSON: several pieces.
  const pets = Array.from({ length: 5000 }, (_, i) => pet(i + 1, `Pet ${i + 1}`))
  t.equal((await sandbox.control('PUT', '/pets?namespace=big', pets)).status, 200)
  const res = await fetch(`${sandbox.origin}/__admin/pets?namespace=big`, { headers: ADMIN_AUTH })
  t.equal(res.status, 200)
  t.equal(res.headers.get('transfer-encoding'), 'chunked', 'chunked: its length is not known before it is sent')
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
  t.same(await res.json(), pets, 'every pet, in id order')
  const empty = await sandbox.control('PUT', '/pets?namespace=empty', [])
  t.equal(empty.status, 200)
  t.same((await sandbox.control('GET', '/pets?namespace=empty')).body, [], 'an empty store exports []')
})
