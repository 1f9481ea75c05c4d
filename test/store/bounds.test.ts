// What the sandbox keeps is bounded: a pet's name, and the pets and bytes of each namespace and of
// all of them. A create past a bound is refused with an Error before anything of it is stored, every
// pet acknowledged before stays, and a restart serves them all and keeps the bounds.
import { join } from 'node:path'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { MAX_NAME_LENGTH } from '../../src/store/limits.js'
import { ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { tempDir } from '../support/sandbox.js'
import { FaultyFileSystem } from './faulty-file-system.js'

/** A name of `length` characters, some of them outside the BMP (two code units, one character). */
function nameOf(length: number): string {
  return '🐈'.repeat(10) + 'a'.repeat(length - 10)
}

async function createIn(sandbox: ControlSandbox, namespace: string, name = 'Rex') {
  return sandbox.api('POST', '/pets', { name, categoryId: 1 }, ns(namespace))
}

async function namesIn(sandbox: ControlSandbox, namespace: string): Promise<string[]> {
  const { body } = await sandbox.api('GET', '/pets?limit=100', undefined, ns(namespace))
  return (body as Array<{ id: number; name: string }>).filter((pet) => pet.id > 60).map((pet) => pet.name)
}

t.test(`a name of ${MAX_NAME_LENGTH} characters is kept; one more is a 400 naming body.name`, async (t) => {
  const sandbox = await startControlSandbox(t)
  const atBound = await createIn(sandbox, 'names', nameOf(MAX_NAME_LENGTH))
  t.equal(atBound.status, 201, 'at the bound: created')
  t.equal(atBound.body.name, nameOf(MAX_NAME_LENGTH))
  const past = await createIn(sandbox, 'names', nameOf(MAX_NAME_LENGTH + 1))
  t.equal(past.status, 400)
  t.match(past.body, {
    code: 'invalid_body',
    status: 400,
    message: new RegExp(`body\\.name must NOT have more than ${MAX_NAME_LENGTH} characters`),
  })
  t.same(await namesIn(sandbox, 'names'), [nameOf(MAX_NAME_LENGTH)], 'nothing of the refused pet is kept')

  const replaced = await sandbox.control('PUT', '/pets?namespace=names', [
    { id: 1, name: 'Short', categoryId: 1, status: 'available' },
    { id: 2, name: nameOf(MAX_NAME_LENGTH + 1), categoryId: 1, status: 'available' },
  ])
  t.equal(replaced.status, 400, 'the control API refuses the same name')
  t.match(replaced.body, { code: 'invalid_body', message: /record 1: pet\.name must NOT have more than/ })
})

t.test(
  'a namespace at MAX_PETS refuses the next create with 507, keeps every pet, and so does a restart',
  async (t) => {
    const dataFile = join(await tempDir(t), 'db.json')
    const settings = { DATA_FILE: dataFile, MAX_PETS: '3' }
    let sandbox = await startControlSandbox(t, settings)
    for (const name of ['A', 'B', 'C']) t.equal((await createIn(sandbox, 'small', name)).status, 201, `${name} created`)
    const refused = await createIn(sandbox, 'small', 'D')
    t.equal(refused.status, 507)
    t.match(refused.body, {
      code: 'store_full',
      status: 507,
      message: /^Nothing was stored: a namespace keeps at most 3 pets \(MAX_PETS\)/,
    })
    t.same(await namesIn(sandbox, 'small'), ['A', 'B', 'C'], 'every acknowledged pet, and nothing of the refused one')
    t.equal((await createIn(sandbox, 'other', 'E')).status, 201, 'another namespace has its own bound')

    const tooMany = [1, 2, 3, 4].map((id) => ({ id, name: `P${id}`, categoryId: 1, status: 'sold' }))
    const replaced = await sandbox.control('PUT', '/pets?namespace=other', tooMany)
    t.match(replaced, { status: 507, body: { code: 'store_full', message: /^Nothing was changed: .*MAX_PETS/ } })
    t.same(await namesIn(sandbox, 'other'), ['E'], 'a refused replacement changes nothing')

    await sandbox.close()
    sandbox = await startControlSandbox(t, settings)
    t.same(await namesIn(sandbox, 'small'), ['A', 'B', 'C'], 'a restart serves every acknowledged pet')
    t.equal((await createIn(sandbox, 'small', 'D')).status, 507, 'and counts them against the bound')
    t.equal((await sandbox.control('POST', '/reset?namespace=small')).status, 200)
    t.equal((await createIn(sandbox, 'small', 'D')).status, 201, 'a reset makes room')
  },
)

t.test('MAX_STORE_BYTES bounds the bytes of pets a namespace keeps', async (t) => {
  // A pet with a name of 900 characters takes about 960 bytes: two fit in 2,000, a third does not.
  const sandbox = await startControlSandbox(t, { MAX_STORE_BYTES: '2000' })
  const name = 'n'.repeat(900)
  t.equal((await createIn(sandbox, 'bytes', name)).status, 201)
  t.equal((await createIn(sandbox, 'bytes', name)).status, 201)
  const refused = await createIn(sandbox, 'bytes', name)
  t.match(refused, {
    status: 507,
    body: { code: 'store_full', message: /at most 2000 bytes of pets \(MAX_STORE_BYTES\)/ },
  })
  t.equal((await createIn(sandbox, 'bytes', 'Rex')).status, 201, 'a smaller pet still fits')
  t.equal((await namesIn(sandbox, 'bytes')).length, 3)
})

t.test(
  'MAX_TOTAL_PETS and MAX_TOTAL_BYTES bound all namespaces together; a deleted one gives its room back',
  async (t) => {
    // The default namespace keeps the 60 pets of the fixtures as its own.
    const sandbox = await startControlSandbox(t, { MAX_TOTAL_PETS: '63' })
    t.equal((await createIn(sandbox, 'a', 'A1')).status, 201)
    t.equal((await createIn(sandbox, 'a', 'A2')).status, 201)
    t.equal((await createIn(sandbox, 'b', 'B1')).status, 201)
    const refused = await createIn(sandbox, 'b', 'B2')
    t.match(refused, {
      status: 507,
      body: { code: 'store_full', message: /the namespaces together keep at most 63 pets \(MAX_TOTAL_PETS\)/ },
    })
    t.equal((await sandbox.control('DELETE', '/namespaces/a')).status, 200)
    t.equal((await createIn(sandbox, 'b', 'B2')).status, 201, 'the deleted namespace gave its room back')
    t.same(await namesIn(sandbox, 'b'), ['B1', 'B2'])

    const bytes = await startControlSandbox(t, { MAX_TOTAL_BYTES: '1' })
    t.match(await createIn(bytes, 'c'), { status: 507, body: { message: /MAX_TOTAL_BYTES/ } })
  },
)

t.test('a bound must be a whole number from 1', async (t) => {
  for (const variable of ['MAX_PETS', 'MAX_STORE_BYTES', 'MAX_TOTAL_PETS', 'MAX_TOTAL_BYTES'])
    t.throws(() => loadConfig([], { [variable]: '0' }), new RegExp(`${variable} must be a whole number from 1`))
  const config = loadConfig(['--max-pets', '7'], {})
  t.equal(config !== 'help' && config.storeBounds.maxPets, 7, 'the flag sets it too')
})

t.test('a namespace whose deletion the disk refused still counts against MAX_TOTAL_PETS', async (t) => {
  const dir = await tempDir(t)
  const fs = new FaultyFileSystem(join(dir, 'db.ns.doomed.json'))
  // The default namespace keeps the 60 pets of the fixtures as its own.
  const sandbox = await startControlSandbox(
    t,
    { DATA_FILE: join(dir, 'db.json'), MAX_TOTAL_PETS: '64' },
    { fileSystem: fs },
  )
  for (const name of ['D1', 'D2']) t.equal((await createIn(sandbox, 'doomed', name)).status, 201)
  fs.arm(
    ...(['open', 'write', 'remove', 'syncDirectory'] as const).flatMap((call) =>
      (['append log', 'data file', 'temp file', 'directory'] as const).map((target) => ({
        call,
        target,
        failure: 'EROFS' as const,
        nth: 1,
        persistent: true,
      })),
    ),
  )
  const deleted = await sandbox.control('DELETE', '/namespaces/doomed')
  fs.clear()
  t.equal(deleted.status, 503, 'the deletion changed nothing')
  t.same(await namesIn(sandbox, 'doomed'), ['D1', 'D2'])
  t.equal((await createIn(sandbox, 'other', 'O1')).status, 201)
  t.equal((await createIn(sandbox, 'other', 'O2')).status, 201)
  t.match(await createIn(sandbox, 'other', 'O3'), { status: 507 }, 'the kept namespace still takes its room')
})
