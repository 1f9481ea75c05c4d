// Which commits of a shared namespace wait for the disk: those that change what a client was told
// is stored. A state read back from PostgreSQL's jsonb has its keys in jsonb's order, and the calls
// a fault has seen are no promise: neither may make a read's commit a durable one. A state is a
// snapshot, its text made only when a commit or a comparison needs it: what is counted after leaves it.
import t from 'tap'
import { CoverageTally } from '../../src/journal/coverage-tally.js'
import { Redactor } from '../../src/journal/redactor.js'
import type { RequestRecord } from '../../src/journal/request-record.js'
import { lastingChanged } from '../../src/shared/changes.js'
import type { State } from '../../src/shared/tables.js'

const state = (fault: Record<string, unknown>): State =>
  ({
    source: { kind: 'seed', seed: 1, count: 20 },
    base: null,
    pets: { generation: 1, count: 20, lastId: 20 },
    faults: { nextId: 2, faults: [{ id: 1, operationId: '*', status: 503, after: 0, times: 1, ...fault }] },
    clock: { offset: null, moved: false },
    journal: { clears: 0, lastId: 3, oldestId: 1, tally: {} },
  }) as unknown as State

/** The same value with every object's keys in reverse order, as jsonb may give them back. */
const reordered = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reordered)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([key, item]) => [key, reordered(item)]),
        )
      : value

/** What a client was told is stored, as text: all but the journal and the calls each fault saw, keys in order. */
const lasting = ({ journal: _journal, faults, ...rest }: State): string =>
  JSON.stringify(
    sorted({
      ...rest,
      nextId: faults.nextId,
      faults: faults.faults.map(({ seen: _s, seenBy: _b, ...fault }) => fault),
    }),
  )
const sorted = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sorted)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
        )
      : value

t.test('what lasts of a state', async (t) => {
  const before = state({ seen: 1, seenBy: { listPets: 1 } })
  t.notOk(lastingChanged(reordered(before) as State, before), 'keys in another order are the same state')
  t.notOk(lastingChanged(state({ seen: 2, seenBy: { listPets: 2 } }), before), 'calls a fault saw are no change')
  t.ok(lastingChanged(state({ seen: 1, seenBy: { listPets: 1 }, times: 0 }), before), 'a fault that fired is')
  t.ok(lastingChanged({ ...before, pets: { generation: 2, count: 0, lastId: 20 } }, before), 'replaced pets are')
})

t.test('what lasts is compared field by field, as its text would be', async (t) => {
  const none = { ...state({}), faults: { nextId: 2, faults: [] } } as State
  const fault = state({ seen: 3, fired: 0, hits: [] })
  const states: Array<[string, State]> = [
    ['the state', none],
    ['its keys in another order', reordered(none) as State],
    ['another journal', { ...none, journal: { ...none.journal, lastId: 4 } }],
    ['replaced pets', { ...none, pets: { ...none.pets, generation: 2 } }],
    ['a pet more', { ...none, pets: { ...none.pets, count: 21, lastId: 21 } }],
    ['another source', { ...none, source: { kind: 'seed', seed: 2, count: 20 } }],
    ['a snapshot base', { ...none, base: { kind: 'snapshot', name: 'a' } }],
    ['a fault armed and gone', { ...none, faults: { nextId: 3, faults: [] } }],
    ['a clock set', { ...none, clock: { offset: 1000, moved: true } }],
    ['a clock moved to real time', { ...none, clock: { offset: null, moved: true } }],
    ['a fault', fault],
    ['the fault, its keys in another order', reordered(fault) as State],
    ['the fault having seen more calls', state({ seen: 9, seenBy: { listPets: 9 }, fired: 0, hits: [] })],
    ['the fault with a property undefined', state({ seen: 3, fired: 0, hits: [], probability: undefined })],
    ['the fault fired', state({ seen: 4, fired: 1, hits: [{ call: 4, operationId: 'listPets' }] })],
    ['the fault fired at another call', state({ seen: 4, fired: 1, hits: [{ call: 3, operationId: 'listPets' }] })],
    ['another fault', state({ seen: 3, fired: 0, hits: [], status: 500 })],
    [
      'two faults',
      { ...fault, faults: { nextId: 3, faults: [...fault.faults.faults, { ...fault.faults.faults[0]!, id: 2 }] } },
    ],
  ]
  for (const [was, before] of states)
    for (const [is, after] of states)
      t.equal(lastingChanged(after, before), lasting(after) !== lasting(before), `${was}, then ${is}`)
})

t.test(
  "a tally's dump stays as it was while the tally counts on, and a tally loaded counts in objects of its own",
  async (t) => {
    const redactor = new Redactor([])
    const call = (status: number, search = ''): RequestRecord => ({
      time: Date.UTC(2026, 0, 1),
      namespace: 'n',
      method: 'GET',
      path: '/v1/pets',
      search,
      headers: {},
      body: undefined,
      status,
      durationMs: 1,
      operationId: 'listPets',
      fault: null,
      error: status === 400 ? { code: 'invalid_request', message: 'limit' } : undefined,
      authenticated: true,
      traceId: undefined,
    })
    const tally = new CoverageTally()
    tally.add(call(200, '?limit=1'), 1, redactor)
    tally.add(call(400), 2, redactor)
    const dump = tally.dump()
    const text = JSON.stringify(dump)
    tally.add(call(200, '?limit=1'), 3, redactor)
    tally.add(call(400), 4, redactor)
    t.equal(JSON.stringify(dump), text, 'the dump is what was counted when it was made')
    const loaded = CoverageTally.load(dump)
    loaded.add(call(200), 5, redactor)
    loaded.add(call(400), 6, redactor)
    t.equal(JSON.stringify(dump), text, 'counting on in a loaded tally leaves what it was loaded from')
  },
)
