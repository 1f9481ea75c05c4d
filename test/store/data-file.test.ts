// The store's data file layout: an image plus an append log of creates. Restarts (kill
// -9 under load: faults.test.ts), an append log torn at any byte or ending in garbage, corrupt images
// and append logs, stale append logs, compaction, and what the file layer does after a failed write
// (through a file system that fails chosen calls: faulty-file-system.ts).
import { access, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { createLogger } from '../../src/logger.js'
import { DataFile } from '../../src/store/data-file.js'
import { type Compaction } from '../../src/store/compaction.js'
import { startSandbox } from '../../src/sandbox.js'
import {
  AUTH,
  postPet,
  readStoredPets,
  runCliToEnd,
  startTestSandbox,
  stopAsKilled,
  tempDir,
  testConfig,
  waitFor,
} from '../support/sandbox.js'
import { FaultyFileSystem } from './faulty-file-system.js'
import { seededRandom } from '../support/random.js'

type Pet = { id: number; name: string; categoryId: number; status: string }

const pet = (id: number, name = `Pet ${id}`): Pet => ({ id, name, categoryId: 1, status: 'available' })
const line = (value: unknown): string => `${JSON.stringify(value)}\n`
const idsOf = (pets: ReadonlyArray<{ id: number }>): number[] => pets.map((p) => p.id)
const storedIds = async (file: string): Promise<number[]> => idsOf(await readStoredPets(file))
/** The records in `file`'s append log (0 when there is none). */
const appendLogLines = async (file: string): Promise<number> =>
  (await readFile(`${file}.journal`, 'utf8').catch(() => '\n')).split('\n').length - 2

const create = (baseUrl: string, name: string, headers?: Record<string, string>): Promise<Response> =>
  postPet(baseUrl, { name, categoryId: 1 }, headers)

/** The ids of the pets in `file`, as a new adapter reads it. */
const readBack = async (file: string): Promise<number[] | undefined> =>
  (await new DataFile<{ pets: Pet[] }, Pet>(file, 'pets').read())?.pets.map((p) => p.id)

/** A data file as the sandbox writes it: an image naming its append log, and the append log; returns the image. */
async function writeLayout(dataFile: string, image: Pet[], appendLog: string | Buffer): Promise<string> {
  const text = JSON.stringify({ pets: image, journal: 'j1' })
  await writeFile(dataFile, text)
  await writeFile(`${dataFile}.journal`, appendLog)
  return text
}

t.test('a create appends one append log line; the image is not rewritten; a restart reads both', async (t) => {
  const config = await testConfig(t)
  const first = await startSandbox(config, createLogger('silent'))
  const image = await readFile(config.dataFile!, 'utf8')
  const created: Pet[] = []
  for (const name of ['One', 'Two', 'Three']) created.push((await (await create(first.baseUrl, name)).json()) as Pet)
  t.equal(await readFile(config.dataFile!, 'utf8'), image, 'the image is untouched by creates')
  const appendLog = (await readFile(`${config.dataFile}.journal`, 'utf8')).split('\n')
  t.same(
    appendLog.slice(1, -1).map((l) => JSON.parse(l)),
    created,
    'each acknowledged pet is one append log line',
  )

  // A restart without a clean stop (the process would have been killed): image + append log.
  stopAsKilled(first, config.dataFile!)
  const second = await startSandbox(config, createLogger('silent'))
  t.same(second.store.all().slice(-3), created, 'the restarted store holds the onDisk pets')
  await second.close()
  const compacted = JSON.parse(await readFile(config.dataFile!, 'utf8')) as { pets: Pet[] }
  t.same(compacted.pets.slice(-3), created, 'a clean stop folds the append log into the image')
  await t.rejects(
    readFile(`${config.dataFile}.journal`, 'utf8'),
    { code: 'ENOENT' },
    'and removes the append log it folded in',
  )
})

t.test('an append log left from an older image is ignored: that image already holds it', async (t) => {
  const config = await testConfig(t)
  await writeFile(config.dataFile!, JSON.stringify({ pets: [pet(1), pet(2)], journal: 'new' }))
  await writeFile(`${config.dataFile}.journal`, line({ snapshot: 'old' }) + line(pet(2)) + line(pet(99)))
  const sandbox = await startSandbox(config, createLogger('silent'))
  t.teardown(() => sandbox.close())
  t.same(idsOf(sandbox.store.all()), [1, 2])
  const res = await fetch(`${sandbox.baseUrl}/pets/99`, { headers: AUTH })
  t.equal(res.status, 404, 'a record of the stale append log does not come back')
  await res.body?.cancel()
})

t.test('the append log is folded into a new image once it holds enough records', async (t) => {
  const dir = await tempDir(t)
  const file = join(dir, 'db.json')
  const adapter = new DataFile<{ pets: Pet[] }, Pet>(file, 'pets', { compaction: { afterRecords: 3 } })
  const data = { pets: [pet(1)] }
  await adapter.write(data)
  for (const id of [2, 3]) {
    data.pets.push(pet(id))
    await adapter.append(data, [pet(id)])
  }
  t.equal(await appendLogLines(file), 2, 'below the threshold, records are appended')
  data.pets.push(pet(4))
  await adapter.append(data, [pet(4)])
  t.equal(await appendLogLines(file), 0, 'at the threshold, the append log starts over')
  t.same(await storedIds(file), [1, 2, 3, 4], 'with every record in the image')
  t.same(await readBack(file), [1, 2, 3, 4], 'and read back the same')
})

t.test('an append log is folded into the image once the file is idle, and not while writes keep coming', async (t) => {
  const dir = await tempDir(t)
  const file = join(dir, 'db.json')
  // Writes 50 ms apart must stay well inside the idle time even on a busy machine, where a timer
  // or a process can be late by a second or more.
  const idleMs = 3_000
  const adapter = new DataFile<{ pets: Pet[] }, Pet>(file, 'pets', {
    compaction: { afterRecords: 1_000, idleAfterRecords: 2, idleMs },
  })
  const data = { pets: [pet(1)] }
  await adapter.write(data)
  data.pets.push(pet(2))
  await adapter.append(data, [pet(2)])
  // Nothing to wait for: a fold that must not happen. Past the idle time, it would have.
  await sleep(idleMs * 1.5)
  t.equal(await appendLogLines(file), 1, 'below the idle threshold, the append log stays')
  // Writes closer together than the idle time: no fold in between.
  for (const id of [3, 4, 5, 6]) {
    data.pets.push(pet(id))
    await adapter.append(data, [pet(id)])
    await sleep(50)
  }
  t.equal(await appendLogLines(file), 5, 'while writes keep coming, every record is appended')
  // The fold starts after the idle time and takes an image write (fsync, rename): wait for it, bounded.
  await waitFor(async () => (await appendLogLines(file)) === 0, {
    what: 'the idle append log to be folded into the image',
  })
  t.equal(await appendLogLines(file), 0, 'once the file is idle, the append log starts over')
  t.same(await storedIds(file), [1, 2, 3, 4, 5, 6], 'with every record in the image')
  t.same(await readBack(file), [1, 2, 3, 4, 5, 6], 'and read back the same')
})

t.test('requests that arrive as a write hands over to the next are all written, once and in order', async (t) => {
  const dir = await tempDir(t)
  const file = join(dir, 'db.json')
  const adapter = new DataFile<{ pets: Pet[] }, Pet>(file, 'pets')
  const data = { pets: [] as Pet[] }
  await adapter.write(data)
  let id = 0
  const add = (): Promise<void> => {
    const record = pet(++id)
    data.pets.push(record)
    return adapter.append(data, [record])
  }
  const failures: unknown[] = []
  for (let round = 0; round < 30; round++) {
    await add()
    // Land after the finished write has handed over, before the flush it scheduled runs.
    await new Promise((resolve) => setImmediate(resolve))
    const results = await Promise.allSettled([add(), round % 3 === 0 ? adapter.write(data) : add(), add()])
    for (const result of results) if (result.status === 'rejected') failures.push(result.reason)
  }
  t.same(failures, [], 'no write failed')
  t.same(await storedIds(file), idsOf(data.pets), 'every record is on disk once, in order')
})

t.test('stopping a store that took no create leaves the data file as it was', async (t) => {
  const config = await testConfig(t)
  const first = await startSandbox(config, createLogger('silent'))
  await first.close()
  const before = await readFile(config.dataFile!, 'utf8')
  const second = await startSandbox(config, createLogger('silent'))
  const res = await fetch(`${second.baseUrl}/pets`, { headers: AUTH })
  await res.body?.cancel()
  await second.close()
  t.equal(await readFile(config.dataFile!, 'utf8'), before, 'no new image was written')
})

t.test('an append log left beside a deleted data file is not taken for the new one', async (t) => {
  const config = await testConfig(t, { SEED: '3', SEED_COUNT: '5' })
  const first = await startSandbox(config, createLogger('silent'))
  const extra = (await (await create(first.baseUrl, 'Left behind')).json()) as Pet
  stopAsKilled(first, config.dataFile!)
  // The user removes the data file to start over; the append log stays.
  const appendLog = await readFile(`${config.dataFile}.journal`, 'utf8')
  await rm(config.dataFile!)
  await writeFile(`${config.dataFile}.journal`, appendLog)
  const second = await startSandbox(config, createLogger('silent'))
  t.teardown(() => second.close())
  t.equal(second.store.get(extra.id), undefined, 'the pet of the old append log is not back')
  await second.close()
  const restarted = await startSandbox(config, createLogger('silent'))
  t.teardown(() => restarted.close())
  t.equal(restarted.store.get(extra.id), undefined, 'nor after another restart')
  t.equal(restarted.store.size, 5)
})

/** A sandbox on `dataFile` whose warnings are kept, and the log a user reads. */
async function startLogged(t: Test, dataFile: string) {
  const sandbox = await startTestSandbox(t, { DATA_FILE: dataFile, LOG_LEVEL: 'warn' })
  return { sandbox, log: () => sandbox.logs.map((line) => line['msg']).join('\n') }
}

t.test(
  'an append log cut at any byte (mid-record, or before a newline): every whole record before it is kept, the cut is said, the next create appends cleanly',
  async (t) => {
    const header = line({ snapshot: 'j1' })
    const records = [2, 3, 4, 5, 6].map((id) => line(pet(id)))
    const appendLog = header + records.join('')
    const next = seededRandom(20_240_601)
    // The edges (inside and at the end of the header, at a record's end, one byte after, a last record
    // whose newline never made it) and random bytes.
    const cuts = new Set([0, 5, header.length - 1, header.length, header.length + 1, appendLog.length - 1])
    while (cuts.size < 14) cuts.add(Math.floor(next() * appendLog.length))
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      const config = await testConfig(t)
      await writeLayout(config.dataFile!, [pet(1)], appendLog.slice(0, cut))
      const { sandbox, log } = await startLogged(t, config.dataFile!)
      // Whole records: those whose newline is before the cut.
      let end = header.length
      const kept = records.filter((record) => {
        if (end + record.length > cut) return false
        end += record.length
        return true
      })
      const whole = cut >= header.length ? end : 0
      const keptIds = kept.map((record) => (JSON.parse(record) as Pet).id)
      t.same(idsOf(sandbox.store.all()), [1, ...keptIds], `cut at byte ${cut}: every whole record before it is kept`)
      const dropped = cut - whole
      if (dropped > 0) {
        const said = `dropped the last ${dropped} bytes of ${config.dataFile}.journal`
        t.match(log(), said, `cut at byte ${cut}: the log says what was dropped`)
        // The command prints this description on stderr: test/start/cli.test.ts.
        t.match(sandbox.dataDescription, said, 'and so does the start banner')
      } else t.equal(log(), '', `cut at byte ${cut}: nothing dropped, nothing said`)

      const after = (await (await create(sandbox.baseUrl, 'After')).json()) as Pet
      t.equal(after.id, (keptIds.at(-1) ?? 1) + 1, 'a torn record never existed: its id is given out again')
      t.same(
        await storedIds(config.dataFile!),
        [1, ...keptIds, after.id],
        'the next create is appended after the last whole record',
      )
      t.equal(
        await readFile(`${config.dataFile}.journal`, 'utf8'),
        (cut >= header.length ? header + kept.join('') : header) + line(after),
        'and the torn bytes are gone',
      )
      await sandbox.close()
    }
  },
)

t.test(
  'garbage after the last whole record is dropped and said; before a whole record, or a record that is no pet, it stops the start',
  async (t) => {
    const header = line({ snapshot: 'j1' })
    const good = header + line(pet(2)) + line(pet(3))
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const next = seededRandom(seed)
      // Random bytes, newlines included: none of its lines can be a record.
      const garbage = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 200) }, () => Math.floor(next() * 256)))
      const config = await testConfig(t)
      await writeLayout(config.dataFile!, [pet(1)], Buffer.concat([Buffer.from(good), garbage]))
      const { sandbox, log } = await startLogged(t, config.dataFile!)
      t.same(
        idsOf(sandbox.store.all()),
        [1, 2, 3],
        `${garbage.length} random bytes (seed ${seed}): every record is kept`,
      )
      t.match(log(), `dropped the last ${garbage.length} bytes`, 'the log says exactly what was dropped')
      await create(sandbox.baseUrl, 'After')
      t.equal(
        (await readFile(`${config.dataFile}.journal`)).subarray(0, good.length + 1).toString(),
        `${good}{`,
        'the next create goes right after the last whole record',
      )
      await sandbox.close()
    }

    // The same garbage with a whole record after it: not a torn end, so nothing is dropped silently.
    const config = await testConfig(t)
    const appendLog = `${good}\u0000\u0007 garbage\n${line(pet(4))}`
    const image = await writeLayout(config.dataFile!, [pet(1)], appendLog)
    await t.rejects(startSandbox(config, createLogger('silent')), {
      name: 'DataFileError',
      message: new RegExp(
        `${config.dataFile}\\.journal has an invalid line 4 .* before whole records; it was left untouched`,
      ),
    })
    t.equal(await readFile(config.dataFile!, 'utf8'), image, 'the image is left untouched')
    t.equal(await readFile(`${config.dataFile}.journal`, 'utf8'), appendLog, 'the append log is left untouched')

    await writeFile(`${config.dataFile}.journal`, header + line({ id: 2, name: 'No category' }))
    await t.rejects(
      startSandbox(config, createLogger('silent')),
      { message: /invalid pet at index 1: pet\.categoryId is required/ },
      'an append log record is checked like any other',
    )
  },
)

t.test('a corrupt image stops the command with one line naming the file, and is left untouched', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  // Pretty-printed, with a name that lost its quotes: JSON.parse quotes the text around the
  // error, newlines included.
  const corrupt = JSON.stringify({ pets: [pet(1), pet(2)], journal: 'j1' }, null, 2).replace('"Pet 2"', 'Pet 2')
  await writeFile(dataFile, corrupt)
  const { code, stderr } = await runCliToEnd({ DATA_FILE: dataFile, API_KEYS: 'k' })
  t.equal(code, 2, 'the start fails')
  t.equal(stderr.trimEnd().split('\n').length, 1, `one line: ${stderr.trimEnd()}`)
  t.match(stderr, `Data file ${dataFile} is not valid JSON`)
  t.match(stderr, 'it was left untouched')
  t.equal(await readFile(dataFile, 'utf8'), corrupt, 'and it was')
})

/** An adapter on a fresh data file over `fs`, with an image of pet 1 written. */
async function adapterOn(t: Test, compaction: Partial<Compaction> = {}) {
  const file = join(await tempDir(t), 'db.json')
  const fs = new FaultyFileSystem(file)
  const adapter = new DataFile<{ pets: Pet[] }, Pet>(file, 'pets', { fileSystem: fs, compaction })
  const data = { pets: [pet(1)] }
  await adapter.write(data)
  return { file, fs, adapter, data }
}

/** Adds a pet as the store does: into the data, then appended; taken back out if the append fails. */
async function add(adapter: DataFile<{ pets: Pet[] }, Pet>, data: { pets: Pet[] }, record: Pet): Promise<boolean> {
  data.pets.push(record)
  try {
    await adapter.append(data, [record])
    return true
  } catch {
    data.pets.splice(data.pets.indexOf(record), 1)
    return false
  }
}

t.test('after a failed append, the next append appends after the last whole record: no new image', async (t) => {
  for (const failure of ['torn', 'ENOSPC', 'EIO'] as const) {
    const call = failure === 'EIO' ? 'fsync' : 'write'
    const { file, fs, adapter, data } = await adapterOn(t)
    t.ok(await add(adapter, data, pet(2)))
    const image = await readFile(file, 'utf8')
    const appendLog = await readFile(`${file}.journal`, 'utf8')
    fs.arm({ call, target: 'append log', failure, nth: 1, persistent: false })
    t.notOk(await add(adapter, data, pet(3)), `a ${call} that fails (${failure}) fails the append`)
    t.equal(await readFile(`${file}.journal`, 'utf8'), appendLog, 'what it wrote is cut off at once')
    fs.log.length = 0
    t.ok(await add(adapter, data, pet(4)), 'the next append succeeds')
    t.equal(await readFile(file, 'utf8'), image, 'without a new image')
    t.equal(await readFile(`${file}.journal`, 'utf8'), appendLog + line(pet(4)), 'right after the last whole record')
    t.equal(fs.log[0], 'open append log', 'through a new descriptor: the one that failed is never used again')
    t.same(await storedIds(file), [1, 2, 4])
  }
})

t.test('a compaction without room for a second copy is not tried: the append log goes on', async (t) => {
  const { file, fs, adapter, data } = await adapterOn(t, { afterRecords: 3, growWithImage: false })
  const image = await readFile(file, 'utf8')
  fs.freeBytesOverride = image.length + 100
  fs.log.length = 0
  for (const id of [2, 3, 4, 5, 6, 7]) t.ok(await add(adapter, data, pet(id)), `append ${id} succeeds`)
  await adapter.compact(data)
  t.equal(await readFile(file, 'utf8'), image, 'the image is not rewritten')
  t.notOk(
    fs.log.some((call) => call.endsWith('temp file')),
    'no temporary image is even started',
  )
  fs.freeBytesOverride = undefined
  await adapter.compact(data)
  t.not(await readFile(file, 'utf8'), image, 'with room, the append log is folded')
  t.same(await storedIds(file), [1, 2, 3, 4, 5, 6, 7])
})

t.test(
  'a compaction that fails fails no append, and leaves no temporary file, even when removing it failed',
  async (t) => {
    const { file, fs, adapter, data } = await adapterOn(t, {
      afterRecords: 2,
      growWithImage: false,
      headroomBytes: 0,
    })
    const temp = join(dirname(file), '.db.json.tmp')
    fs.arm(
      { call: 'write', target: 'temp file', failure: 'torn', nth: 1, persistent: true },
      { call: 'remove', target: 'temp file', failure: 'EIO', nth: 1, persistent: true },
    )
    for (const id of [2, 3, 4, 5])
      t.ok(await add(adapter, data, pet(id)), `append ${id} succeeds while compactions fail`)
    t.ok(fs.failedSinceArmed() >= 2, 'compactions were tried and failed')
    await t.resolves(access(temp), 'the temporary file could not be removed')
    fs.clear()
    t.ok(await add(adapter, data, pet(6)), 'the next append succeeds')
    await t.rejects(access(temp), { code: 'ENOENT' }, 'and the temporary file is gone')
    t.same(await storedIds(file), [1, 2, 3, 4, 5, 6])
  },
)
