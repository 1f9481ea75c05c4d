// MAX_NAMESPACES bounds the namespaces kept, but an eviction never loses what a test was told was
// kept: a namespace holding data a test gave it (its creates, a replace, a reset to a seed or a
// snapshot, an armed fault, a moved clock) stays until it is deleted or reset. Past the bound with
// nothing to evict, a new namespace is refused (503 namespace_limit); a namespace that was only
// read is evicted as before, least recently used first, and the eviction is logged.
import { access } from 'node:fs/promises'
import { request } from 'node:http'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, ns, type Call } from '../support/control.js'
import { AUTH, testConfig, waitFor } from '../support/sandbox.js'

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  )

/** A sandbox with the control API on, whose log lines are kept in `logs()`. */
async function startLogged(t: Test, env: Record<string, string>) {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().trim().split('\n'))
      done()
    },
  })
  const config = await testConfig(t, { ADMIN_TOKEN, ...env })
  const sandbox = await startSandbox(config, createLogger('info', sink))
  t.teardown(() => sandbox.close())
  const admin = (method: string, path: string, body?: unknown): Promise<Call> =>
    call(`${sandbox.origin}/__admin${path}`, method, body, ADMIN_AUTH)
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Call> =>
    call(`${sandbox.baseUrl}${path}`, method, body, { ...AUTH, ...headers })
  const evictions = (): Array<{ namespace: string; for: string }> =>
    lines.map((line) => JSON.parse(line)).filter((entry) => /^namespace evicted/.test(entry.msg))
  /** The namespaces evicted so far, as the log names them. */
  const evicted = (): string[] => evictions().map((entry) => entry.namespace)
  const live = async (): Promise<string[]> =>
    (await admin('GET', '/namespaces')).body.namespaces.map((n: { name: string }) => n.name).sort()
  return { ...sandbox, config, admin, api, evictions, evicted, live }
}

t.test('a full bound of namespaces holding creates refuses new names, and serves every create', async (t) => {
  const { api, admin, evictions, live, config } = await startLogged(t, { MAX_NAMESPACES: '5' })
  const held = ['held-1', 'held-2', 'held-3', 'held-4']
  const five = (name: string) =>
    [0, 1, 2, 3, 4].map((i) => ({ id: 61 + i, name: `${name}-${i}`, categoryId: 1, status: 'available' }))
  for (const name of held)
    for (const { name: pet } of five(name))
      t.equal((await api('POST', '/pets', { name: pet, categoryId: 1 }, ns(name))).status, 201)

  for (let i = 0; i < 100; i++) {
    const res = await api('GET', '/pets', undefined, ns(`stranger-${i}`))
    if (res.status === 503 && res.body.code === 'namespace_limit' && res.headers.get('retry-after') === '1') continue
    t.fail(`stranger-${i}: ${res.status} ${JSON.stringify(res.body)}`)
    break
  }
  const refused = await api('GET', '/pets', undefined, ns('stranger'))
  t.match(refused, {
    status: 503,
    body: { status: 503, code: 'namespace_limit', message: /^No room for namespace "stranger": the 5 namespaces kept/ },
  })
  t.match(
    await admin('POST', '/reset?namespace=stranger'),
    { status: 503, body: { code: 'namespace_limit' } },
    'the control API refuses a new namespace too',
  )
  t.match(await admin('POST', '/faults?namespace=stranger', { operationId: 'listPets', status: 500 }), {
    status: 503,
  })

  for (const name of held) {
    const listed = await api('GET', '/pets?limit=100', undefined, ns(name))
    t.same(listed.body.slice(60), five(name), `${name} serves its 5 creates`)
    t.ok(await exists(join(config.dataFile as string, '..', `db.ns.${name}.json.journal`)), `${name}'s file is kept`)
  }
  t.same(await live(), ['default', 'held-1', 'held-2', 'held-3', 'held-4'])
  t.same(evictions(), [], 'nothing was evicted')

  // Deleted by its owner, a namespace makes room.
  t.equal((await admin('DELETE', '/namespaces/held-2')).status, 200)
  t.equal((await api('GET', '/pets', undefined, ns('stranger'))).status, 200, 'a new name fits again')
})

t.test('a fault, a moved clock, a reset to a seed or a snapshot, a replace: each keeps its namespace', async (t) => {
  const { api, admin, evictions, live } = await startLogged(t, { MAX_NAMESPACES: '7' })
  t.equal((await admin('POST', '/faults?namespace=fault', { operationId: 'getPet', status: 500 })).status, 201)
  t.equal((await admin('POST', '/clock?namespace=clock', { now: '2031-01-01T00:00:00Z' })).status, 200)
  t.equal((await admin('POST', '/reset?namespace=seeded', { seed: 3, count: 4 })).status, 200)
  t.equal((await admin('POST', '/snapshots', { name: 'frozen', namespace: 'seeded' })).status, 201)
  t.equal((await admin('POST', '/reset?namespace=forked', { snapshot: 'frozen' })).status, 200)
  t.equal((await admin('PUT', '/pets?namespace=replaced', [{ id: 1, name: 'Only', categoryId: 1 }])).status, 200)
  t.equal((await api('GET', '/pets', undefined, ns('read-only'))).status, 200)

  t.equal((await api('GET', '/pets', undefined, ns('newcomer'))).status, 200, 'the namespace only read makes room')
  t.same(
    evictions().map((entry) => [entry.namespace, entry.for]),
    [['read-only', 'newcomer']],
    'and is logged',
  )
  t.equal((await api('POST', '/pets', { name: 'Mine', categoryId: 1 }, ns('newcomer'))).status, 201)
  t.match(await api('GET', '/pets', undefined, ns('late')), { status: 503, body: { code: 'namespace_limit' } })

  t.equal((await api('GET', '/pets/1', undefined, ns('fault'))).status, 500, 'the fault is still armed')
  t.equal((await admin('GET', '/clock?namespace=clock')).body.real, false, 'the clock is still moved')
  t.equal((await admin('GET', '/pets?namespace=seeded')).body.length, 4, "the seed's pets are still there")
  t.equal((await admin('GET', '/pets?namespace=forked')).body.length, 4, "the snapshot's pets too")
  t.same((await admin('GET', '/pets?namespace=replaced')).body, [
    { id: 1, name: 'Only', categoryId: 1, status: 'available' },
  ])

  // A clock back at its start holds nothing any more.
  t.equal((await admin('DELETE', '/clock?namespace=clock')).status, 200)
  t.equal((await api('GET', '/pets', undefined, ns('late'))).status, 200, 'a clock back to real time makes room')
  t.match(evictions().at(-1), { namespace: 'clock', for: 'late' })
  t.same(await live(), ['default', 'fault', 'forked', 'late', 'newcomer', 'replaced', 'seeded'])
})

t.test('a namespace reset by its owner holds nothing: it is evicted, its files deleted', async (t) => {
  const { api, admin, evicted, live, namespaces, config } = await startLogged(t, { MAX_NAMESPACES: '3' })
  t.equal((await api('POST', '/pets', { name: 'InA', categoryId: 1 }, ns('a'))).status, 201)
  t.equal((await api('POST', '/pets', { name: 'InB', categoryId: 1 }, ns('b'))).status, 201)
  const bFile = join(config.dataFile as string, '..', 'db.ns.b.json.journal')
  t.ok(await exists(bFile), "b's journal is on disk")
  t.equal((await admin('POST', '/reset?namespace=b')).status, 200, 'b is reset to the initial data')
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 200, 'a is used after b')

  t.equal((await api('GET', '/pets', undefined, ns('c'))).status, 200, 'c takes the room of b')
  t.same(await live(), ['a', 'c', 'default'])
  t.same(evicted(), ['b'])
  await namespaces.flush() // waits for the eviction too
  t.notOk(await exists(bFile), "b's files are deleted")
  t.equal((await api('GET', '/pets/61', undefined, ns('b'))).status, 404, 'b comes back from the initial data')
  t.same(evicted(), ['b', 'c'], 'evicting c, which was only read')
  t.equal((await api('GET', '/pets/61', undefined, ns('a'))).status, 200, "a's create is still served")
})

t.test('a namespace serving a request is not evicted: a create whose body is still coming is kept', async (t) => {
  const { baseUrl, api, live, evicted } = await startLogged(t, { MAX_NAMESPACES: '3' })
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
  await waitFor(async () => (await live()).includes('slow'), { what: 'the namespace slow to be made' })

  for (let i = 0; i < 5; i++)
    t.equal((await api('GET', '/pets', undefined, ns(`fresh-${i}`))).status, 200, `fresh-${i} makes room`)
  t.same(evicted(), ['fresh-0', 'fresh-1', 'fresh-2', 'fresh-3'], 'each evicts the fresh one before it, never slow')
  creating.end(body.slice(10))
  const answer = await created
  t.equal(answer.status, 201)
  t.match(await api('GET', `/pets/${JSON.parse(answer.body).id}`, undefined, ns('slow')), {
    status: 200,
    body: { name: 'Slow' },
  })
})

t.test('MAX_NAMESPACES=1 keeps the default namespace alone: any other is refused', async (t) => {
  const { api, live } = await startLogged(t, { MAX_NAMESPACES: '1' })
  t.match(await api('GET', '/pets', undefined, ns('a')), { status: 503, body: { code: 'namespace_limit' } })
  t.equal((await api('GET', '/pets')).status, 200)
  t.same(await live(), ['default'])
})
