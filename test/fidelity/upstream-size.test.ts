// An upstream answer past UPSTREAM_MAX_BYTES is not read on: a 502 upstream_too_large where the
// upstream answers, nothing recorded, and the sandbox's memory stays flat however large it is (in
// compare mode, drift that says so: failing-upstream.test.ts).
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { API_KEY, AUTH, spawnCli, tempDir } from '../support/sandbox.js'
import { standInFor } from './stand-in.js'

const UPSTREAM_KEY = 'upstream-secret-key-a61f'
const HUGE = 64 * 1024 * 1024
const MiB = 1024 * 1024

/** A line of /proc/<pid>/status, in bytes (VmRSS: resident now; VmHWM: the peak since clear_refs). */
async function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kB = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]
  if (kB === undefined) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(kB) * 1024
}

/** Memory is read from /proc: Linux alone has it. */
const NO_PROC = process.platform === 'linux' ? false : 'it reads /proc/<pid>/status'

t.test(
  'record: a 64 MiB answer is a 502, recorded nowhere, and the sandbox’s peak memory barely moves',
  { skip: NO_PROC },
  async (t) => {
    const { standIn, upstream } = await standInFor(t, UPSTREAM_KEY)
    const sessions = await tempDir(t)
    const sandbox = await spawnCli(t, {
      API_KEYS: API_KEY,
      DATA_FILE: ':memory:',
      ...upstream,
      UPSTREAM_MODE: 'record',
      SESSION_DIR: sessions,
    })
    const pid = sandbox.child.pid as number
    const session = join(sessions, 'default.session.jsonl')
    // Warm: the upstream's client is loaded and a session begun before memory is measured.
    for (let i = 0; i < 3; i++)
      t.equal((await fetch(`${sandbox.baseUrl}/pets?limit=20`, { headers: AUTH })).status, 200)
    const recorded = await readFile(session, 'utf8')

    for (const declareLength of [false, true]) {
      const name = declareLength ? 'with its Content-Length' : 'chunked'
      standIn.switches = { hugeBytes: HUGE, declareLength }
      const written = standIn.hugeWritten()
      const before = await memoryOf(pid, 'VmRSS')
      await writeFile(`/proc/${pid}/clear_refs`, '5') // the peak starts again from now
      const answer = await fetch(`${sandbox.baseUrl}/pets`, { headers: AUTH })
      t.equal(answer.status, 502, `${name}: 502`)
      const growth = (await memoryOf(pid, 'VmHWM')) - before
      t.ok(growth < 24 * MiB, `${name}: the peak grew by ${(growth / MiB).toFixed(1)} MiB, far less than 64`)
      const body = (await answer.text()).slice(0, 1000)
      t.match(body, /^\{"code":"upstream_too_large",.*"status":502\}$/, `${name}: the contract's Error body`)
      t.ok(standIn.hugeWritten() - written < HUGE / 2, `${name}: the upstream was not read to its end`)
    }
    t.equal(await readFile(session, 'utf8'), recorded, 'nothing was recorded')
    standIn.switches = {}
    t.equal(
      (await fetch(`${sandbox.baseUrl}/pets?limit=1`, { headers: AUTH })).status,
      200,
      'the next answer is relayed',
    )
  },
)
