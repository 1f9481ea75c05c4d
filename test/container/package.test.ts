// The npm package for teams without Docker: `npm pack` holds only what runs, and the tarball,
// installed into an empty folder, starts through its bin. The README's Testcontainers example
// runs there too, against the image (skipped without Docker, failing under REQUIRE_DOCKER=1).
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { dockerSkipReason, ensureImage, usageSnippets } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { mustRun, npmPack, runProgram, typecheckAsConsumer } from '../support/system-programs.js'
import { startWithNpx } from './npx.js'

const npm = async (args: string[], cwd: string): Promise<string> => (await mustRun('npm', args, cwd)).stdout

t.setTimeout(15 * 60_000)
const packDir = await tempDir(t)
const { tarball, files: packed } = await npmPack(ROOT, packDir)
const consumer = await tempDir(t)

t.test('npm pack holds only what runs', async (t) => {
  const paths = packed
  for (const needed of [
    'package.json',
    'dist/cli.js',
    'dist/index.js',
    'modules/node/dist/index.js',
    'modules/node/dist/index.d.ts',
    'modules/node/dist/client.js',
    'spec/openapi.yaml',
    'fixtures/pets.json',
  ]) {
    t.ok(paths.includes(needed), `${needed} is packed`)
  }
  const extra = paths.filter(
    (path) =>
      !/^(dist|spec|fixtures|modules\/node\/dist)\//.test(path) &&
      !['package.json', 'modules/node/package.json', 'README.md', 'LICENSE'].includes(path),
  )
  t.same(extra, [], 'nothing else: no sources, tests, scripts or Dockerfile')
  // No source maps: they would point into src/, which is not packed. (The bundle dist/cli.js still
  // names its map, which the package leaves out: a missing map is read as none.)
  t.same(
    paths.filter((path) => path.endsWith('.map')),
    [],
    'no source maps',
  )
  const naming: string[] = []
  for (const path of paths.filter((path) => path.endsWith('.js')))
    if ((await readFile(join(ROOT, path), 'utf8')).includes('//# sourceMappingURL=')) naming.push(path)
  t.same(naming, ['dist/cli.js'], 'no compiled file names a map')
})

t.test('the installed tarball starts through npx in a folder without the sources', async (t) => {
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], consumer)

  const sandbox = await startWithNpx(t, consumer, ['--port', '0'])
  t.match(sandbox.banner, /data: .*fixtures/, 'the built-in fixtures come with the package')
  const response = await fetch(`${sandbox.apiUrl}/pets`, { headers: { authorization: 'Bearer sandbox-api-key' } })
  t.equal(response.status, 200)
  t.equal(((await response.json()) as unknown[]).length, 20)
  t.match(String(await sandbox.stop()), /^(0|SIGTERM)$/, 'npx ends on SIGTERM')
  await t.rejects(fetch(`${sandbox.apiUrl}/pets`), 'the sandbox under npx stopped too: nothing listens any more')
})

const skip = (await dockerSkipReason(t)) ?? false
t.test('README: the Testcontainers example runs against the packed module package', { skip }, async (t) => {
  await ensureImage()
  const snippets = usageSnippets('ts')
  t.equal(snippets.length, 1, 'one TypeScript snippet')
  // The slim package the README names: the module and its client, packed from modules/node.
  const { tarball: module } = await npmPack(join(ROOT, 'modules/node'), packDir)
  await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-dev', module], consumer)
  const file = join(consumer, 'sandbox.test.ts')
  await writeFile(file, snippets[0] ?? '')
  // Typed as a consumer would see it: the package's own .d.ts files, strict mode.
  const typecheck = await typecheckAsConsumer(file, consumer)
  t.equal(typecheck.code, 0, `the snippet typechecks${typecheck.output ? `:\n${typecheck.output}` : ''}`)
  const result = await runProgram(process.execPath, ['--import', import.meta.resolve('tsx'), '--test', file], consumer)
  t.equal(result.code, 0, `node --test runs it green${result.code ? `:\n${result.output}` : ''}`)
  t.match(result.output, /# pass 1/)
})
