// Names that differ only in case get files that differ on a file system that folds case (macOS,
// Windows, Docker Desktop's bind mounts): the mapping of names to files, as a property; a crash
// of the real command on a directory that folds case (test/support/case-folding-fs.mjs), where
// every acknowledged create must come back under its own name; and the files of names with
// capitals written before, which a start renames and serves.
import { readdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import fc from 'fast-check'
import t from 'tap'
import { NAMESPACE_NAME } from '../../src/namespaces/namespaces.js'
import { fileBeside, nameOfFilePart } from '../../src/store/files.js'
import { ROOT, spawnCli, tempDir } from '../support/sandbox.js'
import { ADMIN_AUTH, call, startControlSandbox } from '../support/control.js'

const DATA_FILE = join('data', 'db.json')
/** Equal as the most case-folding file system sees it: Unicode's compatibility form, then case folded. */
const folded = (file: string): string => file.normalize('NFKC').toUpperCase().toLowerCase()
const names = fc.stringMatching(NAMESPACE_NAME)

// A file that gives back its name, and that folding leaves as it is: no two names share a file
// on a file system that folds case.
t.test('a file name gives back its name, and is already as a folding file system keeps it', (t) => {
  fc.assert(
    fc.property(names, (name) => {
      const file = fileBeside(DATA_FILE, 'ns', name)
      const part = file.slice(join('data', 'db.ns.').length, -'.json'.length)
      if (nameOfFilePart(part) !== name) throw new Error(`${name} → ${part} → ${nameOfFilePart(part)}`)
      if (folded(file) !== file) throw new Error(`${file} changes when folded`)
      if (/[<>:"|?*\\]/.test(part)) throw new Error(`${part} holds a character Windows forbids`)
    }),
    { numRuns: 2_000 },
  )
  t.same(
    [fileBeside(DATA_FILE, 'ns', 'Team'), fileBeside(DATA_FILE, 'ns', 'team')],
    [join('data', 'db.ns.+team.json'), join('data', 'db.ns.team.json')],
  )
  t.end()
})

t.test('on a directory that folds case, a crash loses no create of names that differ only in case', async (t) => {
  const dir = await tempDir(t)
  const env = {
    DATA_FILE: join(dir, 'db.json'),
    API_KEYS: 'k',
    CASE_FOLDING_DIR: dir,
    NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${pathToFileURL(join(ROOT, 'test/support/case-folding-fs.mjs')).href}`,
  }
  const first = await spawnCli(t, env)
  const acknowledged: Record<string, { id: number; name: string }[]> = { Team: [], team: [], TEAM: [] }
  for (let i = 0; i < 4; i++) {
    for (const namespace of Object.keys(acknowledged)) {
      const headers = { authorization: 'Bearer k', 'x-sandbox-namespace': namespace }
      const created = await call(`${first.baseUrl}/pets`, 'POST', { name: `${namespace}-${i}`, categoryId: 1 }, headers)
      t.equal(created.status, 201, `create ${i} in ${namespace}`)
      acknowledged[namespace]?.push({ id: created.body.id, name: created.body.name })
    }
  }
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')

  const second = await spawnCli(t, env)
  for (const [namespace, pets] of Object.entries(acknowledged)) {
    const headers = { authorization: 'Bearer k', 'x-sandbox-namespace': namespace }
    const listed = await call(`${second.baseUrl}/pets?limit=100`, 'GET', undefined, headers)
    const created = listed.body
      .filter((pet: { id: number }) => pet.id > 60)
      .map(({ id, name }: { id: number; name: string }) => ({ id, name }))
    t.same(created, pets, `${namespace} serves its own ${pets.length} creates, and no other`)
  }
  t.same(
    (await readdir(dir)).filter((file) => file.includes('.ns.')).sort(),
    ['db.ns.+t+e+a+m.json.journal', 'db.ns.+team.json.journal', 'db.ns.team.json.journal'],
    'three files, each lower case',
  )
  second.child.kill('SIGTERM')
  await second.exited
})

t.test('files of names with capitals written before are renamed at start, and served', async (t) => {
  const first = await startControlSandbox(t)
  const dataFile = first.config.dataFile as string
  const dir = join(dataFile, '..')
  await first.api('POST', '/pets', { name: 'Kept', categoryId: 2 }, { 'x-sandbox-namespace': 'Team' })
  await first.control('POST', '/snapshots', { name: 'Fixture', namespace: 'Team' })
  await first.close()
  const ours = async (): Promise<string[]> =>
    (await readdir(dir)).filter((file) => /\.(ns|snapshot)\./.test(file)).sort()
  const written = await ours()
  t.ok(written.includes('db.snapshot.+fixture.json'), 'the files have names in lower case')
  // As an earlier version named them.
  for (const file of written)
    await rename(join(dir, file), join(dir, file.replace('+team', 'Team').replace('+fixture', 'Fixture')))

  const second = await startControlSandbox(t, { DATA_FILE: dataFile })
  t.same(await ours(), written, 'a start renames them to their names of now')
  const kept = await second.api('GET', '/pets/61', undefined, { 'x-sandbox-namespace': 'Team' })
  t.match(kept, { status: 200, body: { name: 'Kept' } }, 'the namespace serves its pet')
  const snapshots = await second.control('GET', '/snapshots')
  t.same(
    snapshots.body.snapshots.map((s: { name: string }) => s.name),
    ['Fixture'],
    'the snapshot is listed under its name',
  )
  t.equal((await second.control('DELETE', '/namespaces/Team')).status, 200)
  t.equal((await call(`${second.origin}/__admin/snapshots/Fixture`, 'DELETE', undefined, ADMIN_AUTH)).status, 200)
  t.same(await ours(), [], 'a delete removes the renamed files')
})
