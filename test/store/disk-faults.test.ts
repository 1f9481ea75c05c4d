// When the data file cannot be written, a create answers 503 storage_unavailable, nothing is
// acknowledged that is not stored, what was stored before stays readable, and writes succeed
// again once the disk is back, without a restart. Checked through HTTP and by starting a new
// server on (a copy of) the data directory, never through the file layout itself.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cp, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import t, { type Test } from 'tap'
import { createLogger } from '../../src/logger.js'
import type { Config } from '../../src/config.js'
import { startSandbox, type Sandbox } from '../../src/sandbox.js'
import { AUTH, postPet, startTestSandbox, tempDir, testConfig, waitFor } from '../support/sandbox.js'

/** Why this machine cannot give a test a file system of its own (mounting needs root), if it cannot. */
function whyNoTmpfs(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'animal-store-probe-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' })
    execFileSync('umount', [probe], { stdio: 'pipe' })
    return undefined
  } catch (error) {
    return `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}): run as root to test a full and a read-only disk`
  } finally {
    rmSync(probe, { recursive: true, force: true })
  }
}

/** A tiny tmpfs, unmounted when the test ends. */
async function mountTmpfs(t: Test, size: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-disk-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' })
  t.teardown(async () => {
    execFileSync('umount', ['-l', dir])
    await rm(dir, { recursive: true, force: true })
  })
  return dir
}

const remount = (dir: string, mode: 'ro' | 'rw'): void =>
  void execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' })

/** Fills the file system: a write as large as it goes, until ENOSPC. */
async function fill(dir: string): Promise<string> {
  const filler = join(dir, 'filler')
  await writeFile(filler, Buffer.alloc(64 * 1024 * 1024)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOSPC') throw error
  })
  return filler
}

async function create(baseUrl: string, name: string): Promise<{ status: number; body: any; type: string | null }> {
  const res = await postPet(baseUrl, { name, categoryId: 7 })
  return { status: res.status, body: await res.json(), type: res.headers.get('content-type') }
}

/** Every pet the server serves, through the API (the list has no offset: fetched by id). */
async function store(sandbox: { baseUrl: string; store: { size: number } }): Promise<Array<{ name: string }>> {
  const pets: Array<{ name: string }> = []
  for (let id = 1; id <= sandbox.store.size + 10; id++) {
    const res = await fetch(`${sandbox.baseUrl}/pets/${id}`, { headers: AUTH })
    if (res.status === 200) pets.push((await res.json()) as { name: string })
    else await res.arrayBuffer()
  }
  return pets
}

/** The names of the pets a restart of `sandbox` serves (it is stopped first; the restart when the test ends). */
async function namesAfterRestart(t: Test, sandbox: Sandbox & { config: Config }): Promise<string[]> {
  await sandbox.close()
  const restarted = await startSandbox(sandbox.config, createLogger('silent'))
  t.teardown(() => restarted.close())
  return restarted.store.all().map((pet) => pet.name)
}

/** The names a new server finds in a copy of the data directory as it is now. */
async function namesInCopy(t: Test, dataDir: string): Promise<string[]> {
  const copy = await tempDir(t)
  await cp(dataDir, copy, { recursive: true, filter: (source) => !source.endsWith('filler') })
  const config = await testConfig(t, { DATA_FILE: join(copy, 'db.json') })
  const sandbox = await startSandbox(config, createLogger('silent'))
  const names = sandbox.store.all().map((pet) => pet.name)
  await sandbox.close()
  return names
}

const noTmpfs = whyNoTmpfs()
for (const fault of ['full', 'read-only'] as const) {
  t.test(
    `${fault} disk: 503 storage_unavailable, nothing half-stored, writes resume without a restart`,
    { skip: noTmpfs ?? false },
    async (t) => {
      const dir = await mountTmpfs(t, '512k')
      const dataFile = join(dir, 'db.json')
      const sandbox = await startTestSandbox(t, { DATA_FILE: dataFile })
      const initial = sandbox.store.size

      const before = await create(sandbox.baseUrl, 'Before')
      t.equal(before.status, 201)

      let filler: string | undefined
      if (fault === 'full') filler = await fill(dir)
      // mount(8) refuses a read-only remount while a file is open for writing (the sandbox keeps its
      // journal open a moment after a write); a disk the kernel takes read-only does not wait.
      else await waitFor(() => (remount(dir, 'ro'), true), { what: `a read-only remount of ${dir}` })

      // A write may still fit in space the file system had already given the data file (the rest of
      // its last page, for a layout that appends): create until the disk refuses, every 201 before
      // that is a pet that must be kept. Names of one length, so that every record needs the same room.
      const fitted: string[] = []
      const refusedNames: string[] = []
      for (let i = 0; i < 500; i++) {
        const name = `Fill ${String(i).padStart(4, '0')}`
        const answer = await create(sandbox.baseUrl, name)
        if (answer.status !== 201) {
          refusedNames.push(name)
          break
        }
        fitted.push(name)
      }
      t.equal(refusedNames.length, 1, `the disk refuses a create (after ${fitted.length} that still fitted)`)
      const lost = ['Lost 0001', 'Lost 0002', 'Lost 0003']
      refusedNames.push(...lost)
      const refused = await Promise.all(lost.map((name) => create(sandbox.baseUrl, name)))
      for (const answer of refused) {
        t.equal(answer.status, 503)
        t.match(answer.type, /^application\/json/)
        t.match(answer.body, { code: 'storage_unavailable', status: 503, message: /Nothing was stored/ })
      }
      const refusedIn = (names: string[]): string[] => names.filter((name) => refusedNames.includes(name))
      const served = (await store(sandbox)).map((pet) => pet.name)
      t.same(refusedIn(served), [], 'a refused pet is not served')
      t.equal(
        (await fetch(`${sandbox.baseUrl}/pets/${before.body.id}`, { headers: AUTH })).status,
        200,
        'what was stored before is still served',
      )

      // What is on disk now is what was acknowledged, and a new server can read it.
      const onDisk = await namesInCopy(t, dir)
      t.equal(onDisk.length, initial + 1 + fitted.length)
      t.ok(
        onDisk.includes('Before') && fitted.every((name) => onDisk.includes(name)),
        'every acknowledged pet is on disk',
      )
      t.same(refusedIn(onDisk), [], 'nothing refused reached the disk')

      if (filler) await rm(filler)
      else remount(dir, 'rw')

      const after = await create(sandbox.baseUrl, 'After')
      t.equal(after.status, 201, 'writes succeed again once the disk is back, without a restart')
      t.equal((await fetch(`${sandbox.baseUrl}/pets/${after.body.id}`, { headers: AUTH })).status, 200)

      const names = await namesAfterRestart(t, sandbox)
      t.equal(names.length, initial + 2 + fitted.length)
      t.ok(
        names.includes('Before') && names.includes('After') && fitted.every((name) => names.includes(name)),
        'every acknowledged pet survives a restart',
      )
      t.same(refusedIn(names), [], 'no refused pet appears after a restart')
    },
  )
}

t.test(
  'a 256 KiB disk filled by creates: 503 while full; once space is freed, creates succeed again with no restart and nothing left behind',
  { skip: noTmpfs ?? false },
  async (t) => {
    const dir = await mountTmpfs(t, '256k')
    // Room the test gives back later, as when something else on a shared disk is deleted.
    const filler = join(dir, 'filler')
    await writeFile(filler, Buffer.alloc(64 * 1024))
    const sandbox = await startTestSandbox(t, { DATA_FILE: join(dir, 'db.json') })
    const initial = sandbox.store.size

    // Long names, so that a few hundred creates fill the disk, as in the report this test comes from.
    const name = (i: number): string => `Pet ${String(i).padStart(4, '0')} ${'x'.repeat(400)}`
    const acknowledged: string[] = []
    let refused: Response | undefined
    for (let i = 0; i < 1_000 && refused === undefined; i++) {
      const res = await postPet(sandbox.baseUrl, { name: name(i), categoryId: 7 })
      if (res.status === 201) acknowledged.push(name(i))
      else refused = res
      await res.arrayBuffer()
    }
    const journal = (await stat(join(dir, 'db.json.journal'))).size
    t.comment(`the disk was full after ${acknowledged.length} creates, with a journal of ${journal} bytes`)
    t.equal(refused?.status, 503, 'a create on the full disk is refused')
    t.equal(refused?.headers.get('retry-after'), '1', 'with Retry-After')
    // As long as the refused one: a shorter record may still fit in the rest of the journal's last page.
    const stillFull = await create(sandbox.baseUrl, name(1_000))
    t.equal(stillFull.status, 503, 'and so is the next one, while the disk is full')

    await rm(filler)
    const after = await create(sandbox.baseUrl, 'After')
    t.equal(after.status, 201, 'once space is freed, a create succeeds again, with no restart')
    const more = await create(sandbox.baseUrl, 'After too')
    t.equal(more.status, 201, 'and the next one')
    t.same(
      (await readdir(dir)).filter((file) => !['db.json', 'db.json.journal', 'db.json.lock'].includes(file)),
      [],
      'no temporary file is left',
    )

    const names = await namesAfterRestart(t, sandbox)
    t.equal(names.length, initial + acknowledged.length + 2, 'a restart finds every acknowledged pet, and no other')
    t.ok(
      acknowledged.every((n) => names.includes(n)) && names.includes('After') && names.includes('After too'),
      'every acknowledged pet survives a restart',
    )
  },
)

t.test(
  'a read-only disk: a new namespace that evicts one with files keeps the server serving, and the evicted one comes back as it was',
  { skip: noTmpfs ?? false },
  async (t) => {
    const dir = await mountTmpfs(t, '512k')
    const config = await testConfig(t, {
      DATA_FILE: join(dir, 'db.json'),
      MAX_NAMESPACES: '3',
      ADMIN_TOKEN: 'test-admin-token',
    })
    // The warnings, where the sandbox says what the disk refused.
    let log = ''
    const warnings = new PassThrough().on('data', (chunk: Buffer) => (log += chunk.toString()))
    const sandbox = await startSandbox(config, createLogger('warn', warnings))
    t.teardown(() => sandbox.close())
    const ns = (name: string): Record<string, string> => ({ ...AUTH, 'x-sandbox-namespace': name })
    const namesIn = async (baseUrl: string, name: string): Promise<string[]> =>
      ((await (await fetch(`${baseUrl}/pets?limit=100`, { headers: ns(name) })).json()) as Array<{ name: string }>).map(
        (pet) => pet.name,
      )
    // Files of its own, holding nothing a test still needs (reset to the initial data): evictable.
    t.equal((await postPet(sandbox.baseUrl, { name: 'Held', categoryId: 1 }, ns('held'))).status, 201)
    const reset = await fetch(`${sandbox.origin}/__admin/reset?namespace=held`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-admin-token' },
    })
    t.equal(reset.status, 200)
    await reset.arrayBuffer()
    const initial = await namesIn(sandbox.baseUrl, 'held')
    await waitFor(() => (remount(dir, 'ro'), true), { what: `a read-only remount of ${dir}` })

    // With the default namespace, three are kept: the second new name evicts the oldest, whose
    // removal the disk refuses.
    for (const name of ['second', 'third', 'fourth']) {
      const res = await fetch(`${sandbox.baseUrl}/pets?limit=1`, { headers: ns(name) })
      t.equal(res.status, 200, `a request in ${name} is served`)
      await res.arrayBuffer()
    }
    const listed = await fetch(`${sandbox.baseUrl}/pets?limit=1`, { headers: AUTH })
    t.equal(listed.status, 200, 'the default namespace is served')
    await listed.arrayBuffer()
    t.notOk(sandbox.namespaces.find('held'), 'the oldest namespace was evicted')
    await waitFor(() => log.includes('"namespace":"held"'), { what: 'a warning that the disk refused the eviction' })
    t.match(log, /the disk refused its removal: kept on disk/)

    remount(dir, 'rw')
    const served = await namesIn(sandbox.baseUrl, 'held')
    t.same(served, initial, 'the evicted namespace comes back as it was')
    await sandbox.close()
    const restarted = await startSandbox(config, createLogger('silent'))
    t.teardown(() => restarted.close())
    t.same(await namesIn(restarted.baseUrl, 'held'), served, 'a restart serves the same')
  },
)
