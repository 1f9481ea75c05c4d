// The Node module's "When a test fails" step, run as a consumer runs it: the node:test and Vitest
// recipes (examples/<runner>) get the step in their sandbox.mjs, one test made to fail, and
// `npm test`; the failing test must leave its namespace's bundle in test-results/, the passing one
// none, and `replay` of that bundle must give every recorded answer again, the failing test's
// calls included.
import { cp, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { npmPack, runProgram } from '../support/system-programs.js'

const INSTALL_TIMEOUT_MS = 5 * 60_000
const RUN_TIMEOUT_MS = 2 * 60_000
const README = join(ROOT, 'modules/node/README.md')
const IMPORT = `import { saveBundleOnFailure } from 'animal-store-sandbox-testcontainers/client'\n`

/** Each recipe, the step as the module's README writes it, and the line of sandbox.mjs it goes before:
 * before the cleanup that deletes the namespace in the order the runner runs them. */
const RUNNERS = [
  {
    runner: 'node-test',
    step: 't.after(() => saveBundleOnFailure(namespace, { name: t.fullName, failed: !t.passed }))',
    before: '  t.after(async () => {',
  },
  {
    runner: 'vitest',
    step: "onTestFinished(({ task }) => saveBundleOnFailure(namespace, { name: task.name, failed: task.result?.state === 'fail' }))",
    before: '  return namespace',
  },
]
const FAILING_TEST = 'a dog: created, and listed in a namespace of its own'

t.setTimeout(15 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false
if (!skip) await ensureImage()
const { tarball } = skip ? { tarball: '' } : await npmPack(join(ROOT, 'modules/node'), await tempDir(t))
const readme = await readFile(README, 'utf8')

for (const { runner, step, before } of RUNNERS) {
  t.test(`${runner}: a failing test leaves its bundle, which replays to the same answers`, { skip }, async (t) => {
    t.ok(readme.includes(step), 'the README gives the step as the test takes it')
    const consumer = await tempDir(t)
    await cp(join(ROOT, 'examples', runner), consumer, { recursive: true, filter: (s) => !s.includes('node_modules') })
    const env = { ANIMAL_STORE_IMAGE: IMAGE, NO_COLOR: '1' }
    const install = await runProgram(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball],
      consumer,
      env,
      INSTALL_TIMEOUT_MS,
    )
    t.equal(install.code, 0, `npm install${install.code ? `:\n${install.output}` : ''}`)
    if (install.code !== 0) return

    const sandbox = join(consumer, 'sandbox.mjs')
    const source = await readFile(sandbox, 'utf8')
    t.ok(source.includes(before), `sandbox.mjs has the line the step goes before: ${before}`)
    await writeFile(sandbox, IMPORT + source.replace(before, `  ${step}\n${before}`))
    const dog = join(consumer, 'dog.test.mjs')
    await writeFile(dog, (await readFile(dog, 'utf8')).replace('201', '299'))

    const run = await runProgram('npm', ['test'], consumer, env, RUN_TIMEOUT_MS)
    t.not(run.code, 0, 'the run fails')
    const results = join(consumer, 'test-results')
    const files = await readdir(results).catch(() => [])
    const expected = ['a_dog_created_and_listed_in_a_namespace_of_its_own.bundle.json']
    t.same(files, expected, "the failing test's bundle alone", {
      output: files.length === 1 ? '' : run.output.slice(-3000),
    })
    if (files.length !== 1) return
    const path = join(results, files[0] ?? '')
    const bundle = JSON.parse(await readFile(path, 'utf8')) as {
      format: string
      journal: { entries: Array<{ operationId: string; status: number }> }
    }
    t.equal(bundle.format, 'animal-store-sandbox.bundle')
    t.same(
      bundle.journal.entries.map((entry) => `${entry.operationId} ${entry.status}`),
      ['listPets 200', 'createPet 201'],
      `its journal holds the test's calls, the one it failed on last (${FAILING_TEST})`,
    )

    const replay = await runProgram('node', [join(ROOT, 'dist/cli.js'), 'replay', path], ROOT, {}, RUN_TIMEOUT_MS)
    t.equal(replay.code, 0, `replay finds every answer as recorded${replay.code ? `:\n${replay.output}` : ''}`)
    t.match(replay.stdout, /Replayed 2 of 2 requests/)
  })
}
