// Seeded chaos: a fault with a probability acts on the calls its seed draws, the same calls on
// every run of the same calls; it may act on every operation, and it keeps the calls it hit.
import t from 'tap'
import { startControlSandbox, type ControlSandbox } from '../support/control.js'

/** The same calls each time: creates, reads and lists, interleaved. */
async function calls({ api }: ControlSandbox): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < 40; i++) {
    statuses.push((await api('POST', '/pets', { name: `Pet ${i}`, categoryId: 1 })).status)
    statuses.push((await api('GET', '/pets/1')).status)
    statuses.push((await api('GET', '/pets?limit=1')).status)
  }
  return statuses
}

t.test('a seeded profile on every operation hits the same calls on every run', async (t) => {
  const runs = []
  for (let run = 0; run < 2; run++) {
    const sandbox = await startControlSandbox(t)
    const profile = [
      { operationId: '*', status: 503, probability: 0.1, seed: 42 },
      { operationId: '*', delayMs: 5, probability: 0.05, seed: 43 },
    ]
    for (const fault of profile) t.equal((await sandbox.control('POST', '/faults', fault)).status, 201)
    const statuses = await calls(sandbox)
    runs.push({ statuses, faults: (await sandbox.control('GET', '/faults')).body.faults })
  }
  const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]]
  t.same(second.statuses, first.statuses, 'the same answers')
  t.same(second.faults, first.faults, 'the same counters and hits')
  const failed = first.statuses.filter((status) => status === 503).length
  t.ok(failed >= 4 && failed <= 24, `about 10% of 120 calls failed (${failed})`)
  const [chaos, slow] = first.faults
  t.equal(chaos.seen, 120, 'it saw every call')
  t.equal(chaos.fired, failed)
  t.equal(chaos.hits.length, failed, 'it keeps each call it hit')
  t.same(chaos.seenBy, { createPet: 40, getPet: 40, listPets: 40 }, 'counted per operation')
  t.ok(
    chaos.hits.some((hit: { operationId: string }) => hit.operationId === 'getPet') &&
      chaos.hits.some((hit: { operationId: string }) => hit.operationId === 'createPet'),
    'across operations',
  )
  t.ok(slow.fired > 0, 'the delays hit calls too')
})

t.test("a hit's call, armed alone with after and times, is the same call", async (t) => {
  const chaotic = await startControlSandbox(t)
  await chaotic.control('POST', '/faults', { operationId: '*', status: 503, probability: 0.2, seed: 5 })
  const recorded = await calls(chaotic)
  const [{ hits }] = (await chaotic.control('GET', '/faults')).body.faults
  const again = await startControlSandbox(t)
  for (const { operationId, call } of hits)
    await again.control('POST', '/faults', { operationId, status: 503, after: call - 1, times: 1 })
  t.same(await calls(again), recorded)
})

t.test('another seed draws other calls; a seed is chosen and shown when none is given', async (t) => {
  const one = await startControlSandbox(t)
  await one.control('POST', '/faults', { operationId: 'getPet', status: 500, probability: 0.5, seed: 1 })
  const other = await startControlSandbox(t)
  await other.control('POST', '/faults', { operationId: 'getPet', status: 500, probability: 0.5, seed: 2 })
  t.not((await calls(one)).join(), (await calls(other)).join())
  const armed = await one.control('POST', '/faults', { operationId: 'listPets', status: 500, probability: 0.5 })
  t.match(armed.body, { seed: Number, probability: 0.5, hits: [] }, 'the seed chosen is shown')
})

t.test('a probability out of range, or a seed without one, is a 400', async (t) => {
  const { control } = await startControlSandbox(t)
  for (const fault of [
    { operationId: 'getPet', status: 500, probability: 0 },
    { operationId: 'getPet', status: 500, probability: 1.5 },
    { operationId: 'getPet', status: 500, seed: 3 },
    { operationId: 'getPet', status: 500, probability: 0.5, seed: -1 },
  ])
    t.match(
      await control('POST', '/faults', fault),
      { status: 400, body: { code: 'invalid_body' } },
      JSON.stringify(fault),
    )
  t.match(await control('POST', '/faults', { operationId: 'nope', status: 500 }), {
    status: 400,
    body: { message: /one of: .*\*/ },
  })
})
