// The bundle (GET /__admin/bundle) of a real sandbox: what a namespace started from and holds now,
// its journal, faults with their seeds and hits, clock, settings, version and the spec's hash.
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { SPEC_FILE } from '../../src/paths.js'
import { ADMIN_TOKEN, ns, startControlSandbox, traceparent } from '../support/control.js'
import { API_KEY } from '../support/sandbox.js'

t.test('a namespace bundle holds its start, its data now, journal, faults, clock and facts', async (t) => {
  const { control, api } = await startControlSandbox(t, { MAX_PETS: '500' })
  const team = ns('team-a')
  t.equal((await control('POST', '/reset?namespace=team-a', { seed: 7, count: 3 })).status, 200)
  await control('POST', '/clock?namespace=team-a', { now: '2030-01-01T00:00:00Z' })
  await control('POST', '/faults?namespace=team-a', { operationId: 'createPet', status: 503, times: 1 })
  t.equal((await api('POST', '/pets', { name: 'Rex', categoryId: 1 }, team)).status, 503)
  t.equal((await api('POST', '/pets', { name: 'Rex', categoryId: 1 }, team)).status, 201)
  t.equal((await api('GET', '/pets/4', undefined, { ...team, ...traceparent('a'.repeat(32)) })).status, 200)

  const res = await control('GET', '/bundle?namespace=team-a')
  t.equal(res.status, 200)
  const bundle = res.body
  t.match(bundle, { format: 'animal-store-sandbox.bundle', version: 1, namespace: 'team-a', traceId: null })
  t.same(bundle.sandbox, {
    version: JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version,
    specSha256: createHash('sha256')
      .update(await readFile(SPEC_FILE))
      .digest('hex'),
  })
  t.equal(bundle.settings.MAX_PETS, '500', 'a setting that shapes answers')
  t.same(bundle.start.source, { kind: 'seed', seed: 7, count: 3 })
  t.same(
    bundle.start.pets.map((pet: { id: number }) => pet.id),
    [1, 2, 3],
  )
  t.same(
    bundle.now.pets.map((pet: { id: number }) => pet.id),
    [1, 2, 3, 4],
  )
  t.match(bundle.clock, { real: false, now: /^2030-01-01T/ })
  const offset = Date.parse(bundle.clock.now) - Date.parse(bundle.createdAt)
  t.ok(Math.abs(bundle.clock.offsetMs - offset) < 1000, 'the offset from real time')
  t.match(bundle.faults, [
    { operationId: 'createPet', status: 503, seen: 2, fired: 1, hits: [{ operationId: 'createPet', call: 1 }] },
  ])
  t.same(
    bundle.journal.entries.map((entry: { status: number }) => entry.status),
    [503, 201, 200],
  )
  t.equal(bundle.journal.dropped, 0)
  t.equal(bundle.journal.entries[0].headers.authorization, 'Bearer [REDACTED]')
  t.notOk(JSON.stringify(bundle).includes(API_KEY), 'no key anywhere')
  t.notOk(JSON.stringify(bundle).includes(ADMIN_TOKEN), 'no token anywhere')

  const trace = (await control('GET', `/bundle?namespace=team-a&traceId=${'a'.repeat(32)}`)).body
  t.equal(trace.traceId, 'a'.repeat(32))
  t.same(
    trace.journal.entries.map((entry: { path: string }) => entry.path),
    ['/v1/pets/4'],
    "a trace's bundle holds that trace's calls",
  )
})

t.test('a secret a client sent as data is cut from the bundle, the pets included', async (t) => {
  const { control, api } = await startControlSandbox(t)
  t.equal((await api('POST', '/pets', { name: `key ${API_KEY}`, categoryId: 1 })).status, 201)
  const text = JSON.stringify((await control('GET', '/bundle')).body)
  t.notOk(text.includes(API_KEY))
  t.match(text, /key \[REDACTED\]/)
})

t.test('an unknown namespace is a 404, a bad traceId a 400', async (t) => {
  const { control } = await startControlSandbox(t)
  t.match(await control('GET', '/bundle?namespace=nobody'), { status: 404, body: { code: 'not_found' } })
  t.match(await control('GET', '/bundle?traceId=xyz'), { status: 400, body: { code: 'invalid_parameter' } })
})

t.test('a namespace that holds its initial data as its own pets starts from them', async (t) => {
  for (const DATA_FILE of [':memory:', undefined]) {
    const { control, api } = await startControlSandbox(t, DATA_FILE === undefined ? {} : { DATA_FILE })
    const initial = (await control('GET', '/pets')).body
    t.equal((await api('POST', '/pets', { name: 'Rex', categoryId: 1 })).status, 201)
    const bundle = (await control('GET', '/bundle')).body
    t.same(bundle.start.pets, initial, `the default namespace, data file ${DATA_FILE ?? 'on disk'}`)
    t.equal(bundle.now.pets.length, initial.length + 1)
  }
})
