// A namespace whose files the disk refuses to read answers 503 storage_unavailable with
// Retry-After, never a 500, on the API and the control API alike, and serves its pets once the
// disk reads again. Temporary files that failed writes leave go once a write succeeds again, not
// only at the next start. Faults come from a file system that fails chosen calls on the real one,
// and, where libfiu is installed, from libfiu's open() faults under a CLI process of its own.
import { spawn } from 'node:child_process'
import { access, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { Compaction } from '../../src/store/compaction.js'
import { mustRun, skipWithout } from '../support/system-programs.js'
import { ADMIN_AUTH, ADMIN_TOKEN, call, ns, startControlSandbox } from '../support/control.js'
import { API_KEY, AUTH, ROOT, tempDir, waitFor, waitForBanner } from '../support/sandbox.js'
import { FaultyFileSystem, type Fault } from './faulty-file-system.js'

/** A fault on every such call from the first on. */
const always = (call: Fault['call'], target: Fault['target']): Fault => ({
  call,
  target,
  failure: 'EIO',
  nth: 1,
  persistent: true,
})

/** No fold on a timer: one would write while a test's faults are armed. */
const NO_IDLE_FOLD: Partial<Compaction> = { idleAfterRecords: Number.MAX_SAFE_INTEGER }

t.test(
  'a namespace whose files cannot be read: 503 with Retry-After, then its pets once the disk is back',
  async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    // The namespace's files are the ones the faults aim at.
    const fs = new FaultyFileSystem(join(dir, 'db.ns.team.json'))
    const first = await startControlSandbox(t, { DATA_FILE: dataFile }, { fileSystem: fs })
    const created = await first.api('POST', '/pets', { name: 'Kept', categoryId: 1 }, ns('team'))
    t.equal(created.status, 201)
    await first.close()

    // After a restart the namespace is on disk, not read yet: its first use reads it.
    const second = await startControlSandbox(t, { DATA_FILE: dataFile }, { fileSystem: fs })
    fs.arm(always('read', 'data file'), always('read', 'append log'))
    for (const [what, answer] of [
      ['the API', () => second.api('GET', '/pets', undefined, ns('team'))],
      ['the control API', () => second.control('GET', '/pets?namespace=team')],
    ] as const) {
      const refused = await answer()
      t.match(
        refused,
        { status: 503, body: { code: 'storage_unavailable', message: /^Namespace "team" could not be read: .*EIO/ } },
        `${what}: a 503`,
      )
      t.equal(refused.headers.get('retry-after'), '1', `${what}: with Retry-After`)
    }
    t.ok(fs.failedSinceArmed('read') >= 2, 'the reads did fail')

    fs.clear()
    t.match(
      await second.api('GET', `/pets/${created.body.id}`, undefined, ns('team')),
      { status: 200, body: { name: 'Kept' } },
      'once the disk reads again, its files are read: the pet is served, never a namespace made anew',
    )
  },
)

t.test('a temporary file a failed write left goes with the next write that succeeds, in any namespace', async (t) => {
  const dir = await tempDir(t)
  const dataFile = join(dir, 'db.json')
  const fs = new FaultyFileSystem(dataFile)
  const { control, api } = await startControlSandbox(
    t,
    { DATA_FILE: dataFile },
    { fileSystem: fs, compaction: NO_IDLE_FOLD },
  )
  const temp = join(dir, '.db.json.tmp')

  // The new image is written, its rename fails, and so does the removal of its temporary file.
  fs.arm(always('rename', 'temp file'), always('remove', 'temp file'))
  const refused = await control('PUT', '/pets', [{ id: 1, name: 'Only', categoryId: 1 }])
  t.match(refused, { status: 503, body: { code: 'storage_unavailable' } })
  await t.resolves(access(temp), 'the failure left a temporary file')

  fs.clear()
  t.equal((await api('POST', '/pets', { name: 'Elsewhere', categoryId: 1 }, ns('other'))).status, 201)
  await waitFor(async () => !(await readdir(dir)).includes('.db.json.tmp'), {
    what: 'the temporary file to be removed after a write succeeded',
    timeoutMs: 10_000,
  })
  t.same(
    (await readdir(dir)).filter((file) => file.endsWith('.tmp')),
    [],
    'no temporary file is left',
  )
})

const FIU_SKIP = skipWithout(t, 'fiu-run', 'fiu-utils')

interface FiuCli {
  readonly baseUrl: string
  readonly origin: string
  /** Sends a libfiu control command (fiu-ctrl -c) to the process. */
  fiu(command: string): Promise<unknown>
  stop(): Promise<void>
}

/** The CLI on DATA_FILE `dir`/db.json under fiu-run, whose faults fiu-ctrl enables once it serves. */
async function startUnderFiu(t: Test, dir: string): Promise<FiuCli> {
  const fifo = join(dir, 'fiu')
  const env = { DATA_FILE: join(dir, 'db.json'), ADMIN_TOKEN, API_KEYS: API_KEY }
  const child = spawn('fiu-run', ['-x', '-f', fifo, process.execPath, '--import', 'tsx', join(ROOT, 'src/cli.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const exited = new Promise<number | string>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal ?? -1)),
  )
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  t.teardown(stop)
  const { apiUrl } = await waitForBanner(child, exited)
  return {
    baseUrl: apiUrl,
    origin: new URL(apiUrl).origin,
    fiu: (command) => mustRun('fiu-ctrl', ['-f', fifo, '-c', command, String(child.pid)], dir),
    stop,
  }
}

t.test(
  "libfiu: open() failing with EIO under the CLI's own process, a namespace's read is a 503, then served",
  { skip: FIU_SKIP },
  async (t) => {
    const dir = await tempDir(t)
    const first = await startUnderFiu(t, dir)
    const created = await call(
      `${first.baseUrl}/pets`,
      'POST',
      { name: 'Kept', categoryId: 1 },
      { ...AUTH, ...ns('team') },
    )
    t.equal(created.status, 201)
    await first.stop()

    const second = await startUnderFiu(t, dir)
    await second.fiu('enable name=posix/io/oc/open,failinfo=5')
    for (const [what, url, headers] of [
      ['the API', `${second.baseUrl}/pets`, { ...AUTH, ...ns('team') }],
      ['the control API', `${second.origin}/__admin/pets?namespace=team`, ADMIN_AUTH],
    ] as const) {
      const refused = await call(url, 'GET', undefined, headers)
      t.match(refused, { status: 503, body: { code: 'storage_unavailable' } }, `${what}: a 503, never a 500`)
      t.equal(refused.headers.get('retry-after'), '1', `${what}: with Retry-After`)
    }
    await second.fiu('disable name=posix/io/oc/open')
    t.match(
      await call(`${second.baseUrl}/pets/${created.body.id}`, 'GET', undefined, { ...AUTH, ...ns('team') }),
      { status: 200, body: { name: 'Kept' } },
      'once open() works again, the pet is served',
    )
  },
)

t.test(
  'libfiu: rename() and unlink() failing with EIO leave a temporary file, which the next create elsewhere removes',
  { skip: FIU_SKIP },
  async (t) => {
    const dir = await tempDir(t)
    const cli = await startUnderFiu(t, dir)
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
    await cli.fiu('enable name=posix/io/dir/rename,failinfo=5')
    await cli.fiu('enable name=posix/io/dir/unlink,failinfo=5')
    const refused = await call(`${cli.origin}/__admin/pets`, 'PUT', [{ id: 1, name: 'Only', categoryId: 1 }], admin)
    t.match(refused, { status: 503, body: { code: 'storage_unavailable' } })
    await t.resolves(access(join(dir, '.db.json.tmp')), 'the failure left a temporary file')

    await cli.fiu('disable name=posix/io/dir/rename')
    await cli.fiu('disable name=posix/io/dir/unlink')
    const created = await call(
      `${cli.baseUrl}/pets`,
      'POST',
      { name: 'Elsewhere', categoryId: 1 },
      { ...AUTH, ...ns('other') },
    )
    t.equal(created.status, 201)
    await waitFor(async () => !(await readdir(dir)).some((file) => file.endsWith('.tmp')), {
      what: 'the temporary file to be removed after a write succeeded',
      timeoutMs: 10_000,
    })
  },
)
