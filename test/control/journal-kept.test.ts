// What a Journal keeps, without a server: the latest requests within its count and bytes, every
// field read back as recorded, oldest first, with consecutive ids.
import t from 'tap'
import { JournalMemory } from '../../src/control/journal-memory.js'
import { MAX_RECORDED_BODY, Redactor } from '../../src/control/redactor.js'
import { Journal, UNAUTHENTICATED_KEPT, type JournalPage } from '../../src/control/request-journal.js'
import type { RequestRecord } from '../../src/control/request-record.js'

const METHODS = ['GET', 'POST', 'DELETE']
const OPERATIONS = ['listPets', 'createPet', 'unmatched']

/** The i-th request: fields that differ from one request to the next, a body of 30 KB on every third. */
function request(i: number): RequestRecord {
  return {
    time: Date.UTC(2026, 0, 1) + i * 1000,
    namespace: 'ring',
    method: METHODS[i % 3] as string,
    path: `/v1/pets/${i}`,
    search: i % 2 === 0 ? `?n=${i}` : '',
    headers: { host: '127.0.0.1', 'x-request': String(i), accept: ['a', 'b'] as unknown as string },
    body: i % 3 === 1 ? Buffer.from(JSON.stringify({ i, pad: 'é'.repeat(15_000) })) : undefined,
    status: i % 5 === 0 ? null : 200 + (i % 4),
    durationMs: i / 10,
    operationId: OPERATIONS[i % 3] as string,
    fault: i % 7 === 0 ? `fault ${i}` : null,
    error: i % 4 === 0 ? { code: `code_${i}`, message: `message ${i}` } : undefined,
    authenticated: true,
    traceId: i % 6 === 0 ? i.toString(16).padStart(32, 'a') : undefined,
  }
}

const ids = (entries: Array<{ id: number }>): number[] => entries.map((e) => e.id)
/** `length` consecutive ids from `first`. */
const consecutive = (first: number, length: number): number[] => Array.from({ length }, (_, k) => first + k)

t.test('the last JOURNAL_SIZE requests, each read back whole, oldest dropped first', async (t) => {
  const journal = new Journal(100, new Redactor([]))
  for (let i = 1; i <= 350; i++) journal.record(request(i))
  const entries = journal.find()
  t.equal(entries.length, 100)
  t.same(ids(entries), consecutive(251, 100), 'ids are consecutive, oldest first')
  for (const entry of entries) {
    // What the entry shows of the record: not its `authenticated`, which picks where it is kept.
    const { time, search, body, error, traceId, ...sent }: Partial<RequestRecord> = request(entry.id)
    delete sent.authenticated
    t.same(
      { ...entry, query: { ...entry.query }, headers: { ...entry.headers } },
      {
        ...sent,
        id: entry.id,
        time: new Date(time).toISOString(),
        query: search === '' ? {} : { n: String(entry.id) },
        headers: { host: '127.0.0.1', 'x-request': String(entry.id), accept: 'a, b' },
        body: body === undefined ? null : JSON.parse(body.toString()),
        error: error ?? null,
        ...(traceId === undefined ? {} : { traceId }),
      },
      `entry ${entry.id} as recorded`,
    )
  }
})

t.test('large bodies are dropped by the byte bound long before the count', async (t) => {
  const journal = new Journal(1000, new Redactor([]))
  const sent = new Map<number, RequestRecord>()
  let id = 0
  // Bodies near the cut: the byte bound drops the oldest long before the count does.
  const record = (body: Buffer | undefined): void => {
    id++
    sent.set(id, { ...request(id), body })
    journal.record(sent.get(id) as RequestRecord)
  }
  for (let i = 0; i < 100; i++) record(Buffer.alloc(MAX_RECORDED_BODY, 'b'))
  for (let i = 0; i < 300; i++) record(undefined)
  const entries = journal.find()
  t.equal(entries.at(-1)?.id, 400)
  t.same(ids(entries), consecutive(401 - entries.length, entries.length), 'consecutive ids, oldest first')
  for (const entry of entries)
    t.same(
      [entry.path, entry.method, entry.status, entry.body === null ? 0 : String(entry.body).length],
      [
        sent.get(entry.id)?.path,
        sent.get(entry.id)?.method,
        sent.get(entry.id)?.status,
        sent.get(entry.id)?.body?.length ?? 0,
      ],
      `entry ${entry.id}`,
    )
})

// The same flood over HTTP, with the coverage it still counts: journal.test.ts. Here the bound
// below UNAUTHENTICATED_KEPT, and the order and cursor across both kinds.
t.test('requests without a key are kept apart: a flood of them leaves the others in place', async (t) => {
  const journal = new Journal(50, new Redactor([]))
  const anonymous = (i: number): RequestRecord => ({
    ...request(i),
    body: undefined,
    status: 401,
    authenticated: false,
  })
  journal.record(request(1))
  journal.record(anonymous(2))
  journal.record(request(3))
  t.same(
    journal.find().map((e) => [e.id, e.status]),
    [
      [1, 201],
      [2, 401],
      [3, 203],
    ],
    'both kinds in one journal, in the order received',
  )
  for (let i = 4; i < 4 + 2 * UNAUTHENTICATED_KEPT; i++) journal.record(anonymous(i))
  journal.record(request(300))
  const entries = journal.find()
  const keyed = entries.filter((e) => e.status !== 401)
  t.same(ids(keyed), [1, 3, 4 + 2 * UNAUTHENTICATED_KEPT], 'the requests with a key are all kept')
  t.equal(entries.length, 3 + Math.min(50, UNAUTHENTICATED_KEPT), 'and the latest ones without, up to the bound')
  t.same(
    ids(entries),
    ids(entries).sort((a, b) => a - b),
    'oldest first',
  )
  const dropped = 1 + 2 * UNAUTHENTICATED_KEPT - Math.min(50, UNAUTHENTICATED_KEPT)
  t.equal(journal.unauthenticatedDropped, dropped, 'the dropped ones are counted')
  t.equal(journal.page({ status: 401 }, { limit: 0 }).unauthenticatedDropped, dropped)

  const pages: number[] = []
  for (let after: number | null = 0; after !== null;) {
    const page: JournalPage = journal.page({}, { limit: 7, after })
    t.equal(page.count, entries.length, 'count covers every page')
    pages.push(...page.entries.map((e) => e.id))
    after = page.next
  }
  t.same(
    pages,
    entries.map((e) => e.id),
    'the cursor walks both kinds in order',
  )

  t.equal(journal.clear(), entries.length)
  t.equal(journal.unauthenticatedDropped, 0)
  journal.record(anonymous(400))
  t.same(ids(journal.find()), [5 + 2 * UNAUTHENTICATED_KEPT], 'ids go on across both kinds')
})

t.test('journals share a total in bytes: the one recorded to least recently gives up its oldest first', async (t) => {
  const MiB = 1024 * 1024
  const memory = new JournalMemory({ requests: 1000, bytes: 2 * MiB, totalBytes: 4 * MiB })
  const [a, b, c] = ['a', 'b', 'c'].map(() => new Journal(1000, new Redactor([]), undefined, memory)) as [
    Journal,
    Journal,
    Journal,
  ]
  const big = (i: number): RequestRecord => ({ ...request(i), body: Buffer.alloc(60 * 1024, 'x') })
  for (let i = 1; i <= 60; i++) a.record(big(i))
  t.ok(a.bytes <= 2 * MiB, `one journal holds at most its own bound (${a.bytes})`)
  t.ok(a.length < 60 && a.length > 10, `its oldest went first (${a.length} kept)`)
  const kept = a.length
  for (let i = 1; i <= 60; i++) b.record(big(i))
  for (let i = 1; i <= 60; i++) c.record(big(i))
  t.ok(memory.bytes <= 4 * MiB, `all of them hold at most the total (${memory.bytes})`)
  t.equal(memory.bytes, a.bytes + b.bytes + c.bytes, 'what they hold is counted exactly')
  t.ok(a.length < kept, `the journal recorded to least recently gave up its oldest (${a.length} of ${kept} kept)`)
  t.same([b.length, c.length], [kept, kept], 'the ones recorded to since keep theirs')
  const held = memory.bytes
  const cBytes = c.bytes
  c.close()
  t.equal(memory.bytes, held - cBytes, "a closed journal's bytes go back")
  c.record(big(61))
  t.equal(c.length, 0, 'a closed journal records nothing more')
})
