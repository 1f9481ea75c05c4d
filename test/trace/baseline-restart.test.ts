// Trace namespaces started from TRACE_NAMESPACE_BASELINE, across a restart on the same data file:
// what a trace changed is kept, what it only read comes back from the snapshot, which is kept too.
import t from 'tap'
import { join } from 'node:path'
import { startControlSandbox } from '../support/control.js'
import { stopAsKilled, tempDir } from '../support/sandbox.js'

const trace = (n: number): string => `4bf92f3577b34da6a3ce929d0e0e47${String(n).padStart(2, '0')}`
const parent = (n: number): Record<string, string> => ({ traceparent: `00-${trace(n)}-00f067aa0ba902b7-01` })

for (const stop of ['closed', 'killed'] as const) {
  t.test(`a trace namespace from a snapshot survives a restart (${stop})`, async (t) => {
    const env = {
      DATA_FILE: join(await tempDir(t), 'db.json'),
      NAMESPACE_FROM_TRACE: 'on',
      TRACE_NAMESPACE_BASELINE: 'baseline',
    }
    const first = await startControlSandbox(t, env)
    t.equal((await first.api('POST', '/pets', { name: 'InBaseline', categoryId: 1 })).status, 201)
    t.equal((await first.control('POST', '/snapshots', { name: 'baseline' })).status, 201)
    t.equal((await first.api('POST', '/pets', { name: 'InTrace1', categoryId: 1 }, parent(1))).status, 201)
    t.match((await first.api('GET', '/pets/61', undefined, parent(2))).body, { name: 'InBaseline' })
    if (stop === 'killed') stopAsKilled(first, env.DATA_FILE)
    else await first.close()

    const again = await startControlSandbox(t, env)
    t.match(
      (await again.api('GET', '/pets/62', undefined, parent(1))).body,
      { name: 'InTrace1' },
      "the trace's own write is kept",
    )
    t.match(
      (await again.api('GET', '/pets/61', undefined, parent(2))).body,
      { name: 'InBaseline' },
      'a trace that only read starts again from the snapshot',
    )
    t.equal((await again.api('GET', '/pets/62', undefined, parent(3))).status, 404, 'a new trace: the snapshot alone')
    t.match((await again.api('GET', '/pets/61', undefined, parent(3))).body, { name: 'InBaseline' })
  })
}
