// NAMESPACES_PER_KEY in one process: a key may have made that many namespaces; the next one it
// would make is refused (503 namespace_limit, nothing made) until it deletes one. Another key, the
// default namespace and the control API's namespaces are not counted against it. With DATA_FILE,
// the count outlives a restart: the owners are kept beside the data file, as key hashes.
import { access, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { ns, startControlSandbox, type ControlSandbox } from '../support/control.js'
import { stopAsKilled } from '../support/sandbox.js'

const KEYS = { A: 'team-a-key', B: 'team-b-key' }
const as = (key: string, name?: string): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  ...(name === undefined ? {} : ns(name)),
})

/** A sandbox with the quota `perKey` and the keys of two teams. */
const start = (t: Test, perKey: number, env: Record<string, string> = {}): Promise<ControlSandbox> =>
  startControlSandbox(t, { API_KEYS: `${KEYS.A},${KEYS.B}`, NAMESPACES_PER_KEY: String(perKey), ...env })

/** Refused by the quota, with the contract's Error body, Retry-After and a message that says how to make room. */
function refused(t: Test, answer: { status: number; headers: Headers; body: any }, name: string): void {
  t.equal(answer.status, 503, `${name} is refused`)
  t.equal(answer.headers.get('retry-after'), '1', 'with Retry-After')
  t.match(answer.body, { code: 'namespace_limit', status: 503 }, 'the Error body')
  t.match(answer.body.message, /NAMESPACES_PER_KEY/, 'naming the setting')
  t.match(answer.body.message, /DELETE \/__admin\/namespaces\/\{name\}/, 'and how to make room')
}

for (const store of [':memory:', 'data file'])
  t.test(
    `${store}: the (N+1)th namespace of one key is refused, another key's is not, and a deletion makes room`,
    async (t) => {
      const { api, namespaceNames, control } = await start(t, 2, store === ':memory:' ? { DATA_FILE: ':memory:' } : {})
      const create = (key: string, name?: string) => api('POST', '/pets', { name: 'Rex', categoryId: 1 }, as(key, name))
      t.equal((await create(KEYS.A, 'a-1')).status, 201)
      t.equal((await api('GET', '/pets', undefined, as(KEYS.A, 'a-2'))).status, 200, 'a read makes a namespace too')
      t.equal((await create(KEYS.A, 'a-1')).status, 201, 'a namespace the key has is used again freely')
      refused(t, await create(KEYS.A, 'a-3'), 'the third namespace of key A')
      refused(t, await api('GET', '/pets', undefined, as(KEYS.A, 'a-4')), 'a read that would make one')
      t.notOk((await namespaceNames()).includes('a-3'), 'nothing was made')
      const journaled = await control('GET', '/requests?namespace=default&status=503')
      t.same(
        journaled.body.entries.map((entry: { error: { code: string } }) => entry.error.code),
        ['namespace_limit', 'namespace_limit'],
        'the refusals are journaled in the default namespace',
      )

      t.equal((await create(KEYS.A)).status, 201, 'the default namespace counts against no key')
      t.equal((await control('POST', '/reset?namespace=ops')).status, 200, 'the control API makes a namespace')
      t.equal((await create(KEYS.A, 'ops')).status, 201, 'which counts against no key either')
      t.equal((await create(KEYS.B, 'b-1')).status, 201, "key B's first namespace")
      t.equal((await create(KEYS.B, 'b-2')).status, 201, 'and its second: key A reaching its quota left it alone')

      t.equal((await control('DELETE', '/namespaces/a-1')).status, 200)
      t.equal((await create(KEYS.A, 'a-3')).status, 201, 'a deletion gives its room back')
      refused(t, await create(KEYS.A, 'a-5'), 'and only that room')
      t.same(await namespaceNames(), ['a-2', 'a-3', 'b-1', 'b-2', 'default', 'ops'])
    },
  )

t.test('the keys of the NAMESPACE_KEY_PREFIX family count as one key: minting keys makes no room', async (t) => {
  const { api, namespaceNames } = await start(t, 2, { NAMESPACE_KEY_PREFIX: 'team-c-' })
  const read = (key: string) => api('GET', '/pets?limit=1', undefined, as(key))
  t.equal((await read('team-c-one')).status, 200)
  t.equal((await read('team-c-two')).status, 200)
  refused(t, await read('team-c-three'), "a third key of the family's namespace")
  t.equal((await read(KEYS.A)).status, 200, 'a configured key is a key of its own')
  t.equal((await api('GET', '/pets', undefined, as(KEYS.A, 'a-1'))).status, 200, 'with its own quota')
  t.same(await namespaceNames(), ['a-1', 'default', 'one', 'two'])
})

t.test("a namespace MAX_NAMESPACES refuses takes none of its key's quota", async (t) => {
  const { api, control } = await start(t, 2, { DATA_FILE: ':memory:', MAX_NAMESPACES: '3' })
  const create = (key: string, name: string) => api('POST', '/pets', { name: 'Rex', categoryId: 1 }, as(key, name))
  for (const name of ['b-1', 'b-2']) t.equal((await create(KEYS.B, name)).status, 201)
  const full = await create(KEYS.A, 'a-refused')
  t.match(full, { status: 503, body: { code: 'namespace_limit' } })
  t.match(full.body.message, /MAX_NAMESPACES/, 'refused by the bound on memory, not by the quota')
  for (const name of ['b-1', 'b-2']) t.equal((await control('DELETE', `/namespaces/${name}`)).status, 200)
  t.equal((await create(KEYS.A, 'a-1')).status, 201)
  t.equal((await create(KEYS.A, 'a-2')).status, 201, "key A's quota is whole")
})

t.test('a namespace evicted holding nothing gives its room back', async (t) => {
  const { api } = await start(t, 2, { DATA_FILE: ':memory:', MAX_NAMESPACES: '2' })
  const read = (name: string) => api('GET', '/pets?limit=1', undefined, as(KEYS.A, name))
  t.equal((await read('empty-1')).status, 200)
  // MAX_NAMESPACES counts the default one: empty-1 leaves memory, as if it had never been made.
  t.equal((await read('empty-2')).status, 200)
  t.equal((await read('empty-3')).status, 200, 'empty-1 was evicted, and counts no more')
})

t.test('with DATA_FILE, a restart counts the namespaces on disk against their keys again', async (t) => {
  const first = await start(t, 2)
  const dataFile = first.config.dataFile as string
  const create = (sandbox: ControlSandbox, key: string, name: string) =>
    sandbox.api('POST', '/pets', { name: 'Rex', categoryId: 1 }, as(key, name))
  t.equal((await create(first, KEYS.A, 'kept-1')).status, 201)
  t.equal((await create(first, KEYS.A, 'kept-2')).status, 201)
  t.equal((await first.api('GET', '/pets', undefined, as(KEYS.B, 'read-only'))).status, 200)
  await first.close()

  const owners = await readFile(join(dataFile, '..', 'db.owners.json'), 'utf8')
  t.notMatch(owners, KEYS.A, 'the owners file holds no key')
  t.match(owners, 'kept-1', 'but the namespaces the keys made')

  const second = await start(t, 2, { DATA_FILE: dataFile })
  refused(t, await create(second, KEYS.A, 'after-restart'), "a third namespace of key A's, after the restart")
  t.equal((await second.control('DELETE', '/namespaces/kept-1')).status, 200)
  t.equal((await create(second, KEYS.A, 'after-restart')).status, 201, 'a deletion after the restart gives room back')
  t.equal((await create(second, KEYS.B, 'b-1')).status, 201)
  t.equal(
    (await create(second, KEYS.B, 'b-2')).status,
    201,
    'a namespace that held nothing is gone at the restart, and counted no more',
  )
})

t.test(
  'with DATA_FILE, a namespace is made only once its owner is on disk: a restart after a kill counts it',
  async (t) => {
    const first = await start(t, 1)
    const dataFile = first.config.dataFile as string
    const create = (sandbox: ControlSandbox, name: string) =>
      sandbox.api('POST', '/pets', { name: 'Rex', categoryId: 1 }, as(KEYS.A, name))
    // A directory where the owners file goes: the disk refuses every write of it.
    const owners = join(dataFile, '..', 'db.owners.json')
    await mkdir(owners)
    const refusedWrite = await create(first, 'made')
    t.match(refusedWrite, { status: 503, body: { code: 'storage_unavailable' } }, 'no owner on disk: no namespace')
    t.match(refusedWrite.body.message, /owners of namespaces could not be written/)
    await rmdir(owners)
    t.equal((await create(first, 'made')).status, 201, 'the disk back, the next try makes it')
    stopAsKilled(first, dataFile)

    // What a kill in the middle of a write of the owners leaves: the start removes it.
    const temporary = join(dataFile, '..', '.db.owners.json.tmp')
    await writeFile(temporary, '{"made": "half')
    const second = await start(t, 1, { DATA_FILE: dataFile })
    refused(t, await create(second, 'another'), 'a second namespace of the key, after a kill and a restart')
    await t.rejects(access(temporary), 'the temporary file a kill left is gone')
  },
)
