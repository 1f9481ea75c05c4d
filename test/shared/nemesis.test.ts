// The shared store under a nemesis: three replicas of the built sandbox on one real PostgreSQL behind
// HAProxy, clients recording every operation (creates with unique names, reads, resets, faults armed
// with after: n and times: 1, verify calls), while replicas are killed and paused, the database is
// restarted, crashed and paused, and connections are cut, at seeded random moments. Once all is
// healed and quiet, the checker (nemesis/checker.ts) reads the final state of every replica and of
// the database against the promises of docs/deploy.md. Seeded: SEED=<n> replays a run's choices;
// NEMESIS_SECONDS sets how long the troubles last (60 by default), NEMESIS_OVERLAP=1 lets them overlap.
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { haproxySkip } from '../support/haproxy.js'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { buildCli } from '../support/sandbox.js'
import { check, report } from './nemesis/checker.js'
import { startClients } from './nemesis/clients.js'
import { startCluster } from './nemesis/cluster.js'
import { readFinal } from './nemesis/final.js'
import { runNemesis } from './nemesis/nemesis.js'

const skip = postgresSkip(t) || haproxySkip(t)
const SEED = Number(process.env['SEED'] ?? Math.floor(Math.random() * 2 ** 31))
// The replicas read SEED as their initial data's seed: this one is the nemesis's alone.
delete process.env['SEED']
const SECONDS = Number(process.env['NEMESIS_SECONDS'] ?? 60)
const OVERLAP = process.env['NEMESIS_OVERLAP'] === '1'
const NAMESPACES = ['nemesis-0', 'nemesis-1', 'nemesis-2', 'nemesis-3']
const QUIET_MS = 3_000

const RUN = `SEED=${SEED} NEMESIS_SECONDS=${SECONDS}${OVERLAP ? ' NEMESIS_OVERLAP=1' : ''}`

t.test(`the shared store under a nemesis (${RUN})`, { skip }, async (t) => {
  t.comment(`seed ${SEED}: rerun with ${RUN} npx tap test/shared/nemesis.test.ts`)
  const db = await startPostgres(t)
  const cluster = await startCluster(t, db, await buildCli(t), 3)
  const began = performance.now()
  const now = (): number => performance.now() - began
  const clients = startClients(cluster, { seed: SEED, clients: 6, namespaces: NAMESPACES, now })
  let troubles
  try {
    troubles = await runNemesis(cluster, {
      seed: SEED,
      seconds: SECONDS,
      overlap: OVERLAP,
      now,
      log: (line) => t.comment(line),
    })
  } finally {
    await cluster.heal()
    await clients.stop()
  }
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS))
  const final = await readFinal(cluster, NAMESPACES)
  const { history } = clients
  const created = history.filter((op) => op.kind === 'create' && op.answer?.status === 201).length
  const keyed = history.filter((op) => op.key !== undefined)
  const sentAgain = keyed.length - new Set(keyed.map((op) => op.key)).size
  const replayed = keyed.filter((op) => op.answer?.replayed === true).length
  t.comment(
    `${history.length} operations, ${created} creates answered 201 (${sentAgain} sent again with their key, ${replayed} answered as replays), ${troubles.length} troubles`,
  )
  t.ok(
    created >= 100 && troubles.length >= Math.min(5, SECONDS / 15),
    'the run made enough creates and troubles to tell',
  )
  const violations = check(history, troubles, final)
  // A failure a replica met and logged, though it answered truly (a refusal), is a bug the run found.
  for (const line of cluster.errors()) violations.push({ invariant: 'replica logged an error', detail: line, ops: [] })
  // The whole run, for a closer look at what the report names.
  const file = join(tmpdir(), `nemesis-${SEED}.json`)
  if (violations.length > 0) await writeFile(file, JSON.stringify({ seed: SEED, troubles, history, final }, replacer))
  // The report in lines of its own, which a reporter prints as they are.
  if (violations.length > 0) t.comment(`${RUN}; the whole run is in ${file}\n${report(violations, history, troubles)}`)
  // The broken invariants in the assertion's own line too, which a CI summary keeps when it drops the report.
  const broken = [...new Set(violations.map((v) => v.invariant))]
  const first = (invariant: string): string => violations.find((v) => v.invariant === invariant)?.detail ?? ''
  const which = broken.length > 0 ? `; broke: ${broken.map((i) => `${i} (${first(i)})`).join(', ')}` : ''
  t.same(broken, [], `every invariant held (${RUN}${which}; the report above)`)
})

/** Maps as objects, in the file of a failed run. */
function replacer(_key: string, value: unknown): unknown {
  return value instanceof Map ? Object.fromEntries(value) : value
}
