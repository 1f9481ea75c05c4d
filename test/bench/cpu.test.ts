// The bench's CPU count of a process and its children keeps what a child used once it ended, as a
// PostgreSQL server's idle backends end in the middle of a run: a count taken after never drops.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { cpuMs } from '../../bench/servers.js'
import { waitFor } from '../../scripts/lib/processes.js'

t.test('a child that ended still counts in its parent', async (t) => {
  // A shell whose child spins through a bounded loop and ends; the shell then sleeps until ended.
  const parent = spawn('sh', ['-c', 'sh -c "i=0; while [ \\$i -lt 400000 ]; do i=\\$((i+1)); done"; exec sleep 60'], {
    stdio: 'ignore',
  })
  t.teardown(() => void parent.kill())
  const child = (): string => {
    const pid = readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, 'utf8').trim()
    return pid === '' ? '' : readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  }
  await waitFor(() => child() === 'sh' && cpuMs(parent.pid) > 50, { what: 'the child to spin for 50 ms' })
  const during = cpuMs(parent.pid)
  await waitFor(() => child() === '' || readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep', {
    what: 'the child to end',
  })
  const after = cpuMs(parent.pid)
  t.ok(after >= during, `the count after the child ended (${after} ms) is at least that while it ran (${during} ms)`)
})
