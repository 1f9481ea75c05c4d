// The Testcontainers module as a consumer gets it, in scratch projects outside the repository:
// modules/node packed and installed from the tarball (testcontainers and nothing of the server; a
// suite of workers on it is test/container/recipes.test.ts, a consumer's strict compile of its
// typings package.test.ts), and the root package installed from a git URL, built on `prepare`.
// The container part skips without Docker, fails under REQUIRE_DOCKER=1.
import { cp, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { mustRun, npmPack, runProgram } from '../support/system-programs.js'

/** What only the server needs: none of it may reach a user of the module. */
const SERVER_ONLY = 'animal-store-sandbox @faker-js/faker json-schema-faker lowdb polka pino swagger-ui-dist ajv'.split(
  ' ',
)

const npm = async (args: string[], cwd: string): Promise<string> => (await mustRun('npm', args, cwd)).stdout

/** An empty ES module project. */
async function scratchProject(): Promise<string> {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  return dir
}

interface Tree {
  dependencies?: Record<string, Tree>
}

/** Every package name in an `npm ls --all --json` tree. */
function namesIn(tree: Tree, names = new Set<string>()): Set<string> {
  for (const [name, child] of Object.entries(tree.dependencies ?? {})) {
    names.add(name)
    namesIn(child, names)
  }
  return names
}

t.setTimeout(20 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false

const { tarball, files: packed } = await npmPack(join(ROOT, 'modules/node'), await tempDir(t))
const consumer = await scratchProject()

t.test('npm pack of modules/node holds dist/, package.json and the README only', async (t) => {
  const paths = packed
  for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/client.d.ts', 'README.md'])
    t.ok(paths.includes(needed), `${needed} is packed`)
  t.same(
    paths.filter((path) => !/^dist\/[\w-]+\.(js|d\.ts)$/.test(path) && !['package.json', 'README.md'].includes(path)),
    [],
    'nothing else: no sources, no source maps',
  )
})

t.test(
  'installed from the tarball, it brings openapi-fetch, testcontainers (with tar-stream) and nothing of the server',
  async (t) => {
    await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], consumer)
    const tree = JSON.parse(await npm(['ls', '--all', '--json', '--omit=dev'], consumer)) as Tree
    t.same(Object.keys(tree.dependencies ?? {}), ['animal-store-sandbox-testcontainers'])
    t.same(
      Object.keys(tree.dependencies?.['animal-store-sandbox-testcontainers']?.dependencies ?? {}),
      ['openapi-fetch', 'tar-stream', 'testcontainers'],
      'its dependencies: openapi-fetch calls the control API; tar-stream, which testcontainers brings too, reads the CA out of a container',
    )
    const names = namesIn(tree)
    t.same(
      SERVER_ONLY.filter((name) => names.has(name)),
      [],
      'no server package anywhere in the tree',
    )
  },
)

t.test('npm install from a git URL: the root package, built on prepare', async (t) => {
  // A repository of the working tree as it is, committed or not.
  const repo = await tempDir(t)
  const listed = await runProgram('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT)
  t.equal(listed.code, 0)
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = join(ROOT, file)
    if (
      await stat(from).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      await cp(from, join(repo, file), { recursive: true })
  }
  const git = (...args: string[]) =>
    runProgram('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], repo)
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['commit', '-qm', 'working tree'],
  ])
    t.equal((await git(...args)).code, 0)

  const project = await scratchProject()
  const started = Date.now()
  // A warm npm cache is used as it is, by the install that `prepare` needs in the clone too: the
  // registry is asked only for what the cache lacks (asking again for each package took a minute or more).
  await npm(
    ['install', '--no-audit', '--no-fund', '--prefer-offline', `git+file://${repo}`, 'testcontainers@11.9.0'],
    project,
  )
  t.comment(`npm install from the git URL took ${((Date.now() - started) / 1000).toFixed(0)} s`)
  await writeFile(
    join(project, 'git.test.mjs'),
    `import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AnimalStoreContainer } from 'animal-store-sandbox/testcontainers'
import { AnimalStoreControlClient } from 'animal-store-sandbox/client'

test('the module loads from the root package', () => {
  assert.throws(() => new AnimalStoreContainer().withEnvironment({ PORT: '1' }), /PORT is the module's/)
})

test('the module and the client against a container', { skip: process.env.NO_DOCKER }, async () => {
  const sandbox = await new AnimalStoreContainer(process.env.ANIMAL_STORE_IMAGE).withInMemory().start()
  try {
    const ns = new AnimalStoreControlClient(sandbox.getOrigin(), {
      adminToken: sandbox.getAdminToken(),
      apiKey: sandbox.getApiKey(),
    }).namespace('git')
    assert.equal((await ns.api.POST('/reset', { body: { seed: 2, count: 3 } })).data?.pets, 3)
    assert.equal((await (await fetch(ns.apiBaseUrl + '/pets', { headers: ns.apiHeaders })).json()).length, 3)
  } finally {
    await sandbox.stop()
  }
})
`,
  )
  if (!skip) await ensureImage()
  const env: Record<string, string> = { ANIMAL_STORE_IMAGE: IMAGE, ...(skip ? { NO_DOCKER: skip } : {}) }
  const { code, output } = await runProgram(process.execPath, ['--test', 'git.test.mjs'], project, env)
  t.equal(code, 0, `the test passes${code ? `:\n${output.slice(-4000)}` : ''}`)
  t.match(output, skip ? /^# pass 1\n# fail 0\n# cancelled 0\n# skipped 1$/m : /^# pass 2$/m)
})
