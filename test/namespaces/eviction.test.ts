// MAX_NAMESPACES bounds the namespaces kept in memory, and making room never loses what a test
// was told was kept. A namespace that holds nothing a test gave it is evicted, least recently used
// first, and comes back from its baseline. With DATA_FILE, one holding data (its creates, a replace,
// a reset to a seed or a snapshot) is unloaded instead: its files stay, and its next use reads them
// back. A fault or a moved clock lives in memory only: a namespace holding one stays. Without
// DATA_FILE nothing can leave memory, and past the bound a new namespace is refused (503
// namespace_limit). Each eviction and unload is logged.
import { access } from 'node:fs/promises'
import { request } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { ns, startControlSandbox } from '../support/control.js'
import { AUTH, waitFor } from '../support/sandbox.js'

/** The evictions (or unloads) logged so far: each namespace evicted, and the one it made room for. */
const evictions = (logs: Array<Record<string, unknown>>, what = 'evicted'): unknown[][] =>
  logs
    .filter((line) => String(line['msg']).startsWith(`namespace ${what}:`))
    .map((line) => [line['namespace'], line['for']])

t.test(
  '150 namespaces each holding a create, MAX_NAMESPACES=100: every one is served, and reads its own pet back',
  async (t) => {
    const { api, control, logs, namespaceNames, config } = await startControlSandbox(t, {
      MAX_NAMESPACES: '100',
      LOG_LEVEL: 'info',
    })
    const names = Array.from({ length: 150 }, (_, i) => `client-${i}`)
    const created = new Map<string, number>()
    const statuses = []
    for (const name of names) {
      const res = await api('POST', '/pets', { name: `Pet of ${name}`, categoryId: 1 }, ns(name))
      statuses.push(res.status)
      created.set(name, res.body.id)
    }
    t.same(statuses, Array(150).fill(201), 'no new namespace is refused')
    t.ok((await namespaceNames()).length <= 100, 'memory keeps at most MAX_NAMESPACES')
    t.same(evictions(logs), [], 'nothing that held data was evicted')
    t.same(
      evictions(logs, 'unloaded').slice(0, 2),
      [
        ['client-0', 'client-99'],
        ['client-1', 'client-100'],
      ],
      'the least recently used are unloaded',
    )
    await t.resolves(
      access(join(config.dataFile as string, '..', 'db.ns.client-0.json.journal')),
      "client-0's files stay",
    )

    const served = []
    for (const name of names) {
      const res = await api('GET', `/pets/${created.get(name)}`, undefined, ns(name))
      served.push(res.status === 200 && res.body.name === `Pet of ${name}`)
      const list = await api('GET', '/pets?limit=100', undefined, ns(name))
      served.push(list.body.filter((pet: { name: string }) => pet.name.startsWith('Pet of')).length === 1)
    }
    t.same(served, Array(300).fill(true), 'each namespace reads back its own pet, and only it')
    t.match(
      await control('GET', `/pets?namespace=client-0`),
      { status: 200, body: [...Array(60).fill({}), { name: 'Pet of client-0' }] },
      'the control API reads an unloaded namespace back too',
    )
    t.equal((await api('POST', '/pets', { name: 'Second', categoryId: 1 }, ns('client-0'))).status, 201)
    t.equal((await api('GET', '/pets?limit=100', undefined, ns('client-0'))).body.length, 62, 'and it takes creates')
  },
)

t.test(
  'without DATA_FILE nothing can leave memory: a full bound of namespaces holding creates refuses new names',
  async (t) => {
    const { api, control, logs } = await startControlSandbox(t, {
      MAX_NAMESPACES: '5',
      LOG_LEVEL: 'info',
      DATA_FILE: ':memory:',
    })
    const held = ['held-1', 'held-2', 'held-3', 'held-4']
    for (const name of held) t.equal((await api('POST', '/pets', { name, categoryId: 1 }, ns(name))).status, 201)

    const statuses = []
    for (let i = 0; i < 20; i++) statuses.push((await api('GET', '/pets', undefined, ns(`stranger-${i}`))).status)
    t.same(statuses, Array(20).fill(503), 'every new name is refused, however many come')
    const refused = await api('GET', '/pets', undefined, ns('stranger'))
    t.match(refused.body, {
      status: 503,
      code: 'namespace_limit',
      message: /^No room for namespace "stranger": the 5 .*without DATA_FILE/,
    })
    t.equal(refused.headers.get('retry-after'), '1')
    t.match(
      await control('POST', '/reset?namespace=stranger'),
      { status: 503, body: { code: 'namespace_limit' } },
      'the control API refuses a new namespace too',
    )
    for (const name of held)
      t.match(await api('GET', '/pets/61', undefined, ns(name)), { status: 200, body: { name } }, `${name} serves it`)
    t.same([...evictions(logs), ...evictions(logs, 'unloaded')], [], 'nothing was evicted or unloaded')

    t.equal((await control('DELETE', '/namespaces/held-2')).status, 200)
    t.equal((await api('GET', '/pets', undefined, ns('stranger'))).status, 200, 'one deleted by its owner makes room')
  },
)

t.test(
  'a reset to a seed or a snapshot, a replace: unloaded and read back; a fault, a moved clock: kept',
  async (t) => {
    const { api, control, logs, namespaceNames } = await startControlSandbox(t, {
      MAX_NAMESPACES: '7',
      LOG_LEVEL: 'info',
    })
    t.equal((await control('POST', '/faults?namespace=fault', { operationId: 'getPet', status: 500 })).status, 201)
    t.equal((await control('POST', '/clock?namespace=clock', { now: '2031-01-01T00:00:00Z' })).status, 200)
    t.equal((await control('POST', '/reset?namespace=seeded', { seed: 3, count: 4 })).status, 200)
    t.equal((await control('POST', '/snapshots', { name: 'frozen', namespace: 'seeded' })).status, 201)
    t.equal((await control('POST', '/reset?namespace=forked', { snapshot: 'frozen' })).status, 200)
    t.equal((await control('PUT', '/pets?namespace=replaced', [{ id: 1, name: 'Only', categoryId: 1 }])).status, 200)
    t.equal((await api('GET', '/pets', undefined, ns('read-only'))).status, 200)

    t.equal((await api('GET', '/pets', undefined, ns('newcomer'))).status, 200, 'the namespace only read makes room')
    t.same(evictions(logs), [['read-only', 'newcomer']], 'and is logged')
    t.equal((await api('POST', '/pets', { name: 'Mine', categoryId: 1 }, ns('newcomer'))).status, 201)
    for (const name of ['late-1', 'late-2', 'late-3'])
      t.equal((await api('POST', '/pets', { name, categoryId: 1 }, ns(name))).status, 201, `${name} gets room`)
    t.same(
      evictions(logs, 'unloaded'),
      [
        ['seeded', 'late-1'],
        ['forked', 'late-2'],
        ['replaced', 'late-3'],
      ],
      'those whose data is in their files are unloaded, least recently used first',
    )
    t.same(await namespaceNames(), ['clock', 'default', 'fault', 'late-1', 'late-2', 'late-3', 'newcomer'])

    t.equal((await api('GET', '/pets/1', undefined, ns('fault'))).status, 500, 'the fault is still armed')
    t.equal((await control('GET', '/clock?namespace=clock')).body.real, false, 'the clock is still moved')
    t.equal((await control('GET', '/pets?namespace=seeded')).body.length, 4, "the seed's pets are read back")
    t.equal((await control('GET', '/pets?namespace=forked')).body.length, 4, "the snapshot's pets too")
    t.match((await control('GET', '/pets?namespace=replaced')).body, [{ id: 1, name: 'Only' }])
    t.match(
      await control('DELETE', '/snapshots/frozen'),
      { status: 409 },
      'a namespace unloaded or read back still counts as a fork of its snapshot',
    )
  },
)

t.test('namespaces that each hold a fault or a moved clock stay: past the bound a new one is refused', async (t) => {
  const { api, control } = await startControlSandbox(t, { MAX_NAMESPACES: '3' })
  t.equal((await control('POST', '/faults?namespace=fault', { operationId: 'getPet', status: 500 })).status, 201)
  t.equal((await control('POST', '/clock?namespace=clock', { now: '2031-01-01T00:00:00Z' })).status, 200)
  const refused = await api('GET', '/pets', undefined, ns('late'))
  t.match(refused.body, {
    code: 'namespace_limit',
    message: /hold a fault or a moved clock, which live in memory only/,
  })
  t.equal(refused.headers.get('retry-after'), '1')
  t.equal((await control('DELETE', '/clock?namespace=clock')).status, 200)
  t.equal((await api('GET', '/pets', undefined, ns('late'))).status, 200, 'a clock back to real time makes room')
})

t.test('a namespace reset by its owner holds nothing: it is evicted, its files deleted', async (t) => {
  const { api, control, logs, namespaceNames, namespaces, config } = await startControlSandbox(t, {
    MAX_NAMESPACES: '3',
    LOG_LEVEL: 'info',
  })
  t.equal((await api('POST', '/pets', { name: 'InA', categoryId: 1 }, ns('a'))).status, 201)
  t.equal((await api('POST', '/pets', { name: 'InB', categoryId: 1 }, ns('b'))).status, 201)
  const bFile = join(config.dataFile as string, '..', 'db.ns.b.json.journal')
  await t.resolves(access(bFile), "b's append log is on disk")
  t.equal((await control('POST', '/reset?namespace=b')).status, 200, 'b is reset to the initial data')
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 200, 'a is used after b')

  t.equal((await api('GET', '/pets', undefined, ns('c'))).status, 200, 'c takes the room of b')
  t.same(await namespaceNames(), ['a', 'c', 'default'])
  await namespaces.flush() // waits for the eviction too
  await t.rejects(access(bFile), { code: 'ENOENT' }, "b's files are deleted")
  t.equal((await api('GET', '/pets/61', undefined, ns('b'))).status, 404, 'b comes back from the initial data')
  t.same(
    evictions(logs),
    [
      ['b', 'c'],
      ['c', 'b'],
    ],
    'evicting c, which was only read',
  )
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 200, "a's create is still served")
})

t.test('a namespace serving a request is not evicted: a create whose body is still coming is kept', async (t) => {
  const { baseUrl, api, logs, namespaceNames } = await startControlSandbox(t, {
    MAX_NAMESPACES: '3',
    LOG_LEVEL: 'info',
  })
  const body = JSON.stringify({ name: 'Slow', categoryId: 1 })
  const headers = { ...AUTH, ...ns('slow'), 'content-type': 'application/json', 'content-length': `${body.length}` }
  const creating = request(`${baseUrl}/pets`, { method: 'POST', headers })
  const created = new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
    creating.on('error', reject)
    creating.on('response', (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => (text += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode, body: text }))
    })
  })
  creating.write(body.slice(0, 10)) // the headers, and the body's start: the namespace is entered
  await waitFor(async () => (await namespaceNames()).includes('slow'), { what: 'the namespace slow to be made' })

  for (let i = 0; i < 5; i++)
    t.equal((await api('GET', '/pets', undefined, ns(`fresh-${i}`))).status, 200, `fresh-${i} makes room`)
  const evicted = evictions(logs).map(([name]) => name)
  t.same(evicted, ['fresh-0', 'fresh-1', 'fresh-2', 'fresh-3'], 'each evicts the fresh one before it, never slow')
  creating.end(body.slice(10))
  const answer = await created
  t.equal(answer.status, 201)
  const id = JSON.parse(answer.body).id
  t.match(await api('GET', `/pets/${id}`, undefined, ns('slow')), { status: 200, body: { name: 'Slow' } })
})

t.test('MAX_NAMESPACES=1 keeps the default namespace alone: any other is refused', async (t) => {
  const { api, namespaceNames } = await startControlSandbox(t, { MAX_NAMESPACES: '1' })
  t.match(await api('GET', '/pets', undefined, ns('a')), { status: 503, body: { code: 'namespace_limit' } })
  t.equal((await api('GET', '/pets')).status, 200)
  t.same(await namespaceNames(), ['default'])
})

t.test(
  'an unloaded namespace keeps counting against MAX_TOTAL_PETS until it is deleted: the bounds bound the disk',
  async (t) => {
    // The default namespace's file lists its 60 initial pets: three creates reach the bound.
    const { api, control } = await startControlSandbox(t, { MAX_NAMESPACES: '2', MAX_TOTAL_PETS: '63' })
    for (const name of ['a', 'b', 'c'])
      t.equal((await api('POST', '/pets', { name, categoryId: 1 }, ns(name))).status, 201, `${name} holds a pet`)
    t.match(
      await api('POST', '/pets', { name: 'd', categoryId: 1 }, ns('d')),
      { status: 507, body: { code: 'store_full', message: /MAX_TOTAL_PETS/ } },
      'a and b, unloaded, still count',
    )
    t.match(await api('GET', '/pets/61', undefined, ns('a')), { status: 200, body: { name: 'a' } }, 'a is read back')
    t.equal(
      (await api('POST', '/pets', { name: 'a2', categoryId: 1 }, ns('a'))).status,
      507,
      'read back, a counts once, not twice',
    )
    t.equal((await control('DELETE', '/namespaces/b')).status, 200, 'b, unloaded, is deleted')
    t.equal((await api('POST', '/pets', { name: 'a2', categoryId: 1 }, ns('a'))).status, 201, 'its room is free')
  },
)
