// Idempotency-Key on createPet, in one process on a data file: a retry with the key answers the
// first create again and never stores twice, across a kill -9; another body with the key is
// refused; a key in flight is a 409; a failed create leaves the key free; keys expire and reset.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { nodeFileSystem, type FileSystem } from '../../src/store/file-system.js'
import { AUTH, postPet, spawnCli, startTestSandbox, tempDir } from '../support/sandbox.js'

type Pet = { id: number; name: string; categoryId: number; status?: string }

const ADMIN = { authorization: 'Bearer idem-admin', 'content-type': 'application/json' }

const keyed = (key: string) => ({ ...AUTH, 'idempotency-key': key })

async function petsNamed(baseUrl: string, name: string): Promise<Pet[]> {
  const res = await fetch(`${baseUrl}/pets?limit=100`, { headers: AUTH })
  return ((await res.json()) as Pet[]).filter((pet) => pet.name === name)
}

t.test('a retry with the key answers the first pet, once, and again after a kill -9', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const env = { DATA_FILE: dataFile, API_KEYS: 'test-key-1', ADMIN_TOKEN: 'idem-admin', SEED: '1', SEED_COUNT: '3' }
  let cli = await spawnCli(t, env)
  const body = { name: 'Idem', categoryId: 7 }

  const first = await postPet(cli.baseUrl, body, keyed('key-1'))
  t.equal(first.status, 201)
  t.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is no replay')
  const pet = (await first.json()) as Pet
  const location = first.headers.get('location')

  const again = await postPet(cli.baseUrl, body, keyed('key-1'))
  t.equal(again.status, 201, 'a retry is answered 201 again')
  t.same(await again.json(), pet, 'with the same pet')
  t.equal(again.headers.get('location'), location, 'and the same Location')
  t.equal(again.headers.get('idempotent-replayed'), 'true', 'marked as a replay')
  t.equal((await petsNamed(cli.baseUrl, 'Idem')).length, 1, 'one pet is stored')

  const other = await postPet(cli.baseUrl, { name: 'Other', categoryId: 7 }, keyed('key-1'))
  t.equal(other.status, 400, 'the key with another body is refused')
  t.match(await other.json(), { code: 'idempotency_key_reused', status: 400, message: /another body/ })
  t.equal((await petsNamed(cli.baseUrl, 'Other')).length, 0, 'and stores nothing')

  const unkeyed = await postPet(cli.baseUrl, body)
  t.equal(unkeyed.status, 201, 'without a key, the same body is another create')
  t.not(((await unkeyed.json()) as Pet).id, pet.id)

  const tooLong = await postPet(cli.baseUrl, body, keyed('k'.repeat(256)))
  t.equal(tooLong.status, 400, 'a key over 255 characters is refused')
  t.match(await tooLong.json(), { code: 'invalid_parameter', message: /Idempotency-Key/ })

  cli.child.kill('SIGKILL')
  await cli.exited
  cli = await spawnCli(t, env)
  const afterKill = await postPet(cli.baseUrl, body, keyed('key-1'))
  t.equal(afterKill.status, 201)
  t.same(await afterKill.json(), pet, 'after a kill -9 and a restart, the retry answers the first pet')
  t.equal(afterKill.headers.get('idempotent-replayed'), 'true')
  t.equal((await petsNamed(cli.baseUrl, 'Idem')).length, 2, 'the keyed pet and the unkeyed one, nothing more')

  // A key is found for 24 hours by the namespace's clock.
  const admin = `${new URL(cli.baseUrl).origin}/__admin`
  const later = new Date(Date.now() + 25 * 60 * 60 * 1000).toISOString()
  t.equal(
    (await fetch(`${admin}/clock`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ now: later }) })).status,
    200,
  )
  const expired = await postPet(cli.baseUrl, body, keyed('key-1'))
  t.equal(expired.status, 201)
  t.not(((await expired.json()) as Pet).id, pet.id, 'a day later the key is free: a new create')
  t.equal(expired.headers.get('idempotent-replayed'), null)

  const beforeReset = (await (await postPet(cli.baseUrl, body, keyed('key-2'))).json()) as Pet
  t.equal((await fetch(`${admin}/reset`, { method: 'POST', headers: ADMIN, body: '{}' })).status, 200)
  const afterReset = await postPet(cli.baseUrl, body, keyed('key-2'))
  t.equal(afterReset.status, 201)
  t.equal(afterReset.headers.get('idempotent-replayed'), null, 'a reset clears the keys with the pets')
  t.equal((await petsNamed(cli.baseUrl, 'Idem')).length, 1, 'the reset store holds only the new create')
  t.ok(beforeReset.id > 0)
})

t.test("a keyed create on a data file of the user's own is stored once, with its key, after a kill -9", async (t) => {
  // A file in another layout has no append log to add to: the first create writes an image
  // first, without the create, whose line (pet and key) then starts the append log.
  const dataFile = join(await tempDir(t), 'db.json')
  await writeFile(dataFile, JSON.stringify({ pets: [{ id: 1, name: 'Own', categoryId: 1, status: 'sold' }] }))
  const env = { DATA_FILE: dataFile, API_KEYS: 'test-key-1' }
  let cli = await spawnCli(t, env)
  const body = { name: 'Keyed', categoryId: 4 }
  const first = await postPet(cli.baseUrl, body, keyed('own-file'))
  t.equal(first.status, 201)
  const pet = (await first.json()) as Pet
  cli.child.kill('SIGKILL')
  await cli.exited
  cli = await spawnCli(t, env)
  t.same(await petsNamed(cli.baseUrl, 'Keyed'), [pet], 'the pet is there once after the restart')
  const retry = await postPet(cli.baseUrl, body, keyed('own-file'))
  t.same(await retry.json(), pet, 'and its key with it')
  t.equal(retry.headers.get('idempotent-replayed'), 'true')
  t.same(await petsNamed(cli.baseUrl, 'Keyed'), [pet])

  // A stop folds the append log into the image: the key is then a member of the image.
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
  t.match(await readFile(dataFile, 'utf8'), `"idempotencyKeys":[{"key":"own-file"`, 'the image holds the key')
  cli = await spawnCli(t, env)
  const fromImage = await postPet(cli.baseUrl, body, keyed('own-file'))
  t.same(await fromImage.json(), pet, 'read back from the image, the key answers the same pet')
  t.equal(fromImage.headers.get('idempotent-replayed'), 'true')
})

/** The real file system, but each fsync of the append log waits while held, and fails while failing. */
function gatedFileSystem(): { fileSystem: FileSystem; hold(): void; open(): void; failing: { on: boolean } } {
  let gate: Promise<void> | undefined
  let release = (): void => undefined
  const failing = { on: false }
  const fileSystem: FileSystem = {
    ...nodeFileSystem,
    async open(path, flags) {
      const file = await nodeFileSystem.open(path, flags)
      if (!path.endsWith('.journal')) return file
      return {
        ...file,
        datasync: async () => {
          await gate
          if (failing.on) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5 })
          return file.datasync()
        },
      }
    },
  }
  return {
    fileSystem,
    failing,
    hold: () => void (gate = new Promise((resolve) => (release = resolve))),
    open: () => {
      release()
      gate = undefined
    },
  }
}

t.test('a key whose create is still being written is a 409; a failed create leaves it free', async (t) => {
  const gated = gatedFileSystem()
  const { baseUrl } = await startTestSandbox(t, {}, {}, { fileSystem: gated.fileSystem })
  const body = { name: 'Slow', categoryId: 3 }
  gated.hold()
  // Both at once: whichever reaches the store first is written (and held); the other is refused.
  const tagged = (name: string) => postPet(baseUrl, body, keyed('slow')).then((res) => ({ name, res }))
  const [a, b] = [tagged('a'), tagged('b')]
  const refused = await Promise.race([a, b])
  t.equal(refused.res.status, 409, 'the key is in use while its create is written')
  t.match(await refused.res.json(), { code: 'idempotency_key_in_use', status: 409, message: /still being served/ })
  gated.open()
  const answered = (await (refused.name === 'a' ? b : a)).res
  t.equal(answered.status, 201)
  const pet = (await answered.json()) as Pet
  const retry = await postPet(baseUrl, body, keyed('slow'))
  t.same(await retry.json(), pet, 'once the first is answered, a retry gets its pet')
  t.equal(retry.headers.get('idempotent-replayed'), 'true')
  t.equal((await petsNamed(baseUrl, 'Slow')).length, 1)

  const failed = { name: 'Failed', categoryId: 3 }
  gated.failing.on = true
  const refusedByDisk = await postPet(baseUrl, failed, keyed('disk'))
  t.equal(refusedByDisk.status, 503, 'the disk refuses the create')
  gated.failing.on = false
  const retried = await postPet(baseUrl, failed, keyed('disk'))
  t.equal(retried.status, 201, 'the retry creates it')
  t.equal(retried.headers.get('idempotent-replayed'), null, 'as a first create: nothing was stored before')
  t.equal((await petsNamed(baseUrl, 'Failed')).length, 1, 'once')
})
