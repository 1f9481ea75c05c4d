// The nemesis's checker on hand-made histories: each invariant broken once is reported with its
// operations, and what the promises allow (a reset wiping a pet, an ambiguous answer going either
// way, a read's entry lost to a crash of the database) is not.
import t from 'tap'
import { check, report, type Final, type Op, type Source, type Trouble } from './checker.js'

const NS = 'ns'
const created = (id: string, at: number, answer: Op['answer'] = { status: 201, replica: 1 }): Op => ({
  id,
  kind: 'create',
  namespace: NS,
  name: `pet-${id}`,
  operationId: 'createPet',
  invokedAt: at,
  completedAt: at + 10,
  answer,
})
/** The call with no answer: a timeout. */
const unanswered = (op: Op): Op => ({
  ...op,
  answer: undefined,
  completedAt: op.invokedAt + 15_000,
  error: 'TimeoutError',
})
const read = (id: string, at: number, answer: Op['answer'] = { status: 200, replica: 1 }): Op => ({
  id,
  kind: 'read',
  namespace: NS,
  operationId: 'listPets',
  invokedAt: at,
  completedAt: at + 10,
  answer,
})
const reset = (id: string, at: number): Op => ({
  id,
  kind: 'reset',
  namespace: NS,
  invokedAt: at,
  completedAt: at + 10,
  answer: { status: 200, replica: 2 },
})

/** One source holding these pets and journal entries, and every replica answering the probe. */
function final(pets: string[], journal: string[], faults: Source['faults'] = new Map()): Final {
  const source: Source = {
    name: 'the database',
    pets: new Map([[NS, pets]]),
    journal: new Map([[NS, journal]]),
    faults,
  }
  return { sources: [source], probes: [{ replica: 1, namespace: NS, status: 200, ms: 20 }] }
}

const invariants = (history: Op[], end: Final, troubles: Trouble[] = []): string[] =>
  check(history, troubles, end).map((v) => v.invariant)

t.test('a history that keeps every promise passes', async (t) => {
  const history = [created('a', 0), read('b', 20), unanswered(created('c', 40))]
  t.same(invariants(history, final(['pet-a'], ['a', 'b'])), [])
  t.equal(report([], history, []), 'every invariant held')
})

t.test(
  'a create answered 201 whose pet is absent is a lost write, unless a reset may have come after it',
  async (t) => {
    const history = [created('a', 0), created('b', 100)]
    const violations = check(history, [], final(['pet-a'], ['a', 'b']))
    t.same(
      violations.map((v) => [v.invariant, v.ops]),
      [['lost write', ['b']]],
    )
    t.match(
      report(violations, history, []),
      /lost write: 1 finding.*\n.*\n {4}b create pet-b in ns 0\.10-0\.11s: 201 from replica 1/,
    )
    // A reset begun while the create was under way may have come after its commit.
    t.same(invariants([...history, reset('r', 105)], final(['pet-a'], ['a'])), [])
    // A read of the pet answered 404 with no reset between: lost, seen by the client.
    const readBack: Op = { ...read('c', 200, { status: 404, replica: 2 }), operationId: 'getPet', reads: 'b' }
    t.same(
      check([...history, readBack], [], final(['pet-a', 'pet-b'], ['a', 'b', 'c'])).map((v) => v.ops),
      [['b', 'c']],
    )
  },
)

t.test('one create stored twice is a duplicated write; initial pets sharing a name are not', async (t) => {
  const history = [created('a', 0)]
  t.same(invariants(history, final(['Rex', 'Rex', 'pet-a', 'pet-a'], ['a'])), ['duplicated write'])
})

t.test('a refused create whose pet is stored is a phantom write; an ambiguous one may go either way', async (t) => {
  const refusedCreate = created('a', 0, { status: 503, code: 'storage_unavailable', retryAfter: true, replica: 1 })
  const unknown = created('b', 0, { status: 503, code: 'storage_unavailable', retryAfter: false, replica: 1 })
  const noAnswer = unanswered(created('c', 0))
  const balancer502 = created('d', 0, { status: 502 })
  const troubles: Trouble[] = [{ kind: 'cut', from: 5, to: 5 }]
  t.same(
    check(
      [refusedCreate, unknown, noAnswer, balancer502],
      troubles,
      final(['pet-a', 'pet-b', 'pet-c', 'pet-d'], ['a', 'b']),
    ).map((v) => [v.invariant, v.ops]),
    [['phantom write', ['a']]],
  )
})

t.test(
  'an answered call missing from the journal is reported; a read lost to a crash of the database is not',
  async (t) => {
    const history = [created('a', 0), read('b', 20)]
    t.same(invariants(history, final(['pet-a'], ['a'])), ['unjournaled answered call'])
    const crash: Trouble = { kind: 'db-immediate-restart', from: 500, to: 1_500 }
    t.same(invariants(history, final(['pet-a'], ['a']), [crash]), [], "a read's entry is not waited for on the disk")
    t.same(invariants(history, final(['pet-a'], ['b']), [crash]), ['unjournaled answered call'], "a create's entry is")
    const killed: Trouble = { kind: 'kill', replica: 2, from: 500, to: 1_500 }
    t.same(invariants(history, final(['pet-a'], ['a']), [killed]), [], 'nor when its owner was killed just after')
    t.same(invariants(history, final(['pet-a'], ['b']), [killed]), ['unjournaled answered call'], 'a create is')
    // Refused while the database restarted: its entry is kept until a commit that waits for the disk.
    const refusal = created('r', 600, { status: 503, code: 'storage_unavailable', retryAfter: true, replica: 1 })
    const refused = [...history, refusal]
    t.same(invariants(refused, final(['pet-a'], ['a', 'r']), [crash]), [], 'a refusal is journaled once it is back')
    t.same(invariants(refused, final(['pet-a'], ['a']), [crash]), ['unjournaled answered call'], 'whatever the crash')
    const refuserKilled: Trouble = { kind: 'kill', replica: 1, from: 700, to: 1_500 }
    t.same(invariants(refused, final(['pet-a'], ['a']), [crash, refuserKilled]), [], 'unless its replica was killed')
    const under: Trouble = { kind: 'db-immediate-restart', from: 10, to: 900 }
    t.same(invariants(history, final(['pet-a'], ['a']), [under]), [], 'nor is it while the crash is under way')
    t.same(invariants(history, final(['pet-a'], ['a', 'b', 'b'])), ['call journaled twice'])
    const unknown = created('c', 30, { status: 503, code: 'storage_unavailable', retryAfter: false, replica: 1 })
    t.same(
      invariants([...history, unknown], final(['pet-a', 'pet-c'], ['a', 'b', 'c', 'c'])),
      [],
      'a call whose outcome stayed unknown may be journaled twice',
    )
    // The replica answered the unknown outcome, but the balancer cut the connection before it came.
    const cut = unanswered(created('d', 30))
    const twice = final(['pet-a', 'pet-d'], ['a', 'b', 'd', 'd'])
    t.same(invariants([...history, cut], twice), ['call journaled twice'], 'an unanswered call, unless…')
    const said = { ...twice, sources: twice.sources.map((source) => ({ ...source, unknown: new Set(['d']) })) }
    t.same(invariants([...history, cut], said), [], '…its entry says the outcome is unknown')
    const answered = final(['pet-a', 'pet-e'], ['a', 'b', 'e', 'e'])
    const saidToo = { ...answered, sources: answered.sources.map((source) => ({ ...source, unknown: new Set(['e']) })) }
    t.same(
      invariants([...history, created('e', 30)], saidToo),
      ['call journaled twice'],
      'a call answered 201 is journaled once, whatever another entry says',
    )
    // A verify that found no entry of a call answered before it.
    const verify: Op = {
      id: 'v',
      kind: 'verify',
      namespace: NS,
      invokedAt: 100,
      completedAt: 110,
      answer: { status: 200, replica: 3 },
      verified: { ids: ['a', 'b'], matched: [1, 0] },
    }
    t.same(
      check([...history, verify], [], final(['pet-a'], ['a', 'b'])).map((v) => v.ops),
      [['b', 'v']],
    )
    // The database paused just after the read's answer: its batch failed, and its entry is kept
    // for the journal as a 503's is, until the database is back.
    const pause: Trouble = { kind: 'db-pause', from: 40, to: 60 }
    t.same(check([...history, verify], [pause], final(['pet-a'], ['a', 'b'])), [], 'not while it is kept')
    const frozen: Trouble = { kind: 'pause', replica: 2, from: 40, to: 60 }
    t.same(check([...history, verify], [frozen], final(['pet-a'], ['a', 'b'])), [], 'nor while its owner is frozen')
    const frozenAsItAnswered: Trouble = { kind: 'pause', replica: 2, from: 25, to: 60 }
    t.same(
      check([...history, verify], [frozenAsItAnswered], final(['pet-a'], ['a', 'b'])),
      [],
      'nor when the freeze began while the answer was on its way',
    )
    const later = { ...verify, invokedAt: 10_000, completedAt: 10_010 }
    t.same(
      check([...history, later], [pause], final(['pet-a'], ['a', 'b'])).map((v) => v.ops),
      [['b', 'v']],
      'but once the database has been back a while',
    )
    const missingCreate = { ...verify, verified: { ids: ['a', 'b'], matched: [0, 1] } }
    t.same(
      check([...history, missingCreate], [pause], final(['pet-a'], ['a', 'b'])).map((v) => v.ops),
      [['a', 'v']],
      "a create's entry committed with it, before its 201",
    )
  },
)

t.test('the attempts of a create with an Idempotency-Key store its pet once between them', async (t) => {
  // Attempts of one create: its name and key, each its own call.
  const attempt = (id: string, at: number, answer?: Op['answer']): Op => ({
    ...(answer === undefined ? unanswered(created(id, at)) : created(id, at, answer)),
    name: 'pet-k',
    key: 'k',
  })
  const refusal = { status: 503, code: 'storage_unavailable', retryAfter: true, replica: 1 }
  const troubles: Trouble[] = [{ kind: 'db-pause', from: 0, to: 300 }]
  const stored = (...ids: string[]) => final(['pet-k'], ids)
  t.same(
    invariants([attempt('a', 0, refusal), attempt('b', 200, { status: 201, replica: 2 })], stored('a', 'b'), troubles),
    [],
    'one refused, then one stored',
  )
  t.same(
    invariants(
      [attempt('a', 0), attempt('b', 200, { status: 201, replica: 2, replayed: true })],
      stored('b'),
      troubles,
    ),
    [],
    'one unanswered that took, then its replay',
  )
  t.same(
    invariants(
      [attempt('a', 0, refusal), attempt('b', 200, { status: 201, replica: 2, replayed: true })],
      stored('a', 'b'),
      troubles,
    ),
    ['phantom write'],
    'a replay of attempts all refused: the refusal lied',
  )
  t.same(
    invariants(
      [attempt('a', 0), attempt('b', 200, { status: 201, replica: 2 })],
      final(['pet-k', 'pet-k'], ['b']),
      troubles,
    ),
    ['duplicated write'],
    'stored by two attempts',
  )
  const inUse = { status: 409, code: 'idempotency_key_in_use', replica: 2 }
  t.same(
    invariants([attempt('a', 60_000), attempt('b', 75_000, inUse)], final([], ['b'])),
    [],
    'a key in use after an attempt that had no answer',
  )
  t.same(invariants([attempt('b', 75_000, inUse)], final([], ['b'])), ['wrongly refused write'], 'but not otherwise')
})

t.test('a refusal with no trouble under way is a wrongly refused write', async (t) => {
  const history = [created('a', 60_000, { status: 503, code: 'storage_unavailable', retryAfter: true, replica: 1 })]
  const end = final([], ['a'])
  t.same(invariants(history, end), ['wrongly refused write'])
  t.same(invariants(history, end, [{ kind: 'db-pause', from: 59_000, to: 59_500 }]), [], 'just after a pause it may be')
})

t.test('a fault armed with times: 1 fires at most once, and once it is due', async (t) => {
  const arm: Op = {
    id: 'f',
    kind: 'arm',
    namespace: NS,
    operationId: 'listPets',
    invokedAt: 0,
    completedAt: 10,
    answer: { status: 201, replica: 1 },
    fault: { id: 4, after: 1 },
  }
  const carrying = (id: string, at: number): Op =>
    read(id, at, { status: 418, code: 'injected_fault', message: 'Fault 4 injected through POST', replica: 2 })
  const journal = ['a', 'b', 'c']
  t.same(invariants([arm, read('a', 20), carrying('b', 40), read('c', 60)], final([], journal)), [])
  t.same(invariants([arm, read('a', 20), carrying('b', 40), carrying('c', 60)], final([], journal)), [
    'fault fired more than once',
  ])
  t.same(invariants([arm, read('a', 20), read('b', 40), read('c', 60)], final([], journal)), [
    'fault due but never fired',
  ])
  // A call with no answer may have been the one it fired on.
  t.same(invariants([arm, read('a', 20), unanswered(read('b', 40)), read('c', 60)], final([], ['a', 'c'])), [])
  // Another fault of the operation, armed with no answer, may have taken the call it was due on.
  const otherArm: Op = { ...arm, id: 'g', fault: undefined, answer: undefined, error: 'TimeoutError' }
  t.same(invariants([arm, otherArm, read('a', 20), read('b', 40)], final([], ['a', 'b'])), [])
  // As listed at the end by a replica or the database.
  const listed = new Map([[NS, [{ id: 4, operationId: 'listPets', after: 1, seen: 3, fired: 0 }]]])
  t.same(invariants([arm], final([], [], listed)), ['fault due but never fired'])
})

t.test('a namespace that does not answer a GET within 5 s after healing is wedged', async (t) => {
  const end: Final = { ...final([], []), probes: [{ replica: 2, namespace: NS, ms: 10_000, error: 'TimeoutError' }] }
  t.match(check([], [], end), [{ invariant: 'wedged namespace', detail: /replica 2: GET of ns answered TimeoutError/ }])
})
