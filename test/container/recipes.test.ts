// The consumer recipes of docs/recipes.md, run as a consumer runs them: each examples/<runner> is
// copied to a folder outside the repository, gets the module from its packed tarball and its pinned
// runner from the registry, and runs `npm test` against the image under test. Each must run its two
// test files in two workers against one container, each test in a namespace of its own, and leave
// no container behind; a failing test in a recipe must fail its run, and so must its end-of-suite
// coverage check.
import { lookup } from 'node:dns/promises'
import { cp, readFile, readdir, writeFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { IMAGE, docker, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { npmPack, runProgram } from '../support/system-programs.js'

/** Each recipe, and how its runner's summary counts the tests that failed and passed. */
const RECIPES = [
  { runner: 'node-test', summary: /^# pass (?<passed>\d+)\n# fail (?<failed>\d+)$/m },
  { runner: 'vitest', summary: /^ +Tests +(?:(?<failed>\d+) failed \| )?(?<passed>\d+) passed/m },
  { runner: 'jest', summary: /^Tests: +(?:(?<failed>\d+) failed, )?(?<passed>\d+) passed/m },
]
const INSTALL_TIMEOUT_MS = 5 * 60_000
const RUN_TIMEOUT_MS = 2 * 60_000
/** The line each recipe test prints when it ends (see examples/<runner>/sandbox.mjs). */
const REPORT = /namespace (?<namespace>\S+) on (?<origin>\S+) in worker (?<worker>\d+)/g

t.setTimeout(20 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false

const npm = (args: string[], cwd: string, timeoutMs: number) =>
  runProgram('npm', args, cwd, { ANIMAL_STORE_IMAGE: IMAGE, NO_COLOR: '1' }, timeoutMs)

/** The runner's own count of the tests that passed and failed, from its summary. */
function counts(summary: RegExp, output: string): { passed: number; failed: number } | undefined {
  const groups = summary.exec(output)?.groups
  return groups && { passed: Number(groups['passed']), failed: Number(groups['failed'] ?? 0) }
}

/** What each test of a run reported. */
const reports = (output: string) =>
  [...output.matchAll(REPORT)].map(({ groups = {} }) => {
    const { namespace, origin, worker } = groups
    return { namespace, origin, worker }
  })

/**
 * The one container a run's tests reported, and what of it is left: containers, of any image, that
 * still publish its port, removed and returned for the failure.
 */
async function leftBehind(t: Test, output: string): Promise<string[]> {
  const origins = [...new Set(reports(output).map((run) => run.origin))]
  t.equal(origins.length, 1, `the tests ran against one container (${origins.join(', ')})`)
  const origin = origins[0] ?? 'http://-'

  // A container's port as testcontainers reads it: its binding of the first address family the
  // origin's host resolves to. Under concurrent starts Docker may give IPv4 and IPv6 different
  // ports, so another container's other binding can hold this port.
  const { hostname, port } = new URL(origin)
  const families = (await lookup(hostname, { all: true })).map(({ family }) => family)
  const lines = (await docker('ps', '--all', '--format', '{{.ID}} {{.Ports}}')).split('\n')
  const left = lines.filter((line) => {
    const bound = new Map<number, string>()
    for (const [, ip = '', hostPort = ''] of line.matchAll(/(\S*):(\d+)->/g))
      if (!bound.has(isIP(ip))) bound.set(isIP(ip), hostPort)
    const family = families.find((f) => bound.has(f))
    return family !== undefined && bound.get(family) === port
  })
  await Promise.all(left.map((line) => docker('rm', '--force', '--volumes', line.split(' ')[0] ?? '')))
  return left
}

// One tarball of the module for every recipe, as a consumer gets it from a registry.
if (!skip) await ensureImage()
const { tarball } = skip ? { tarball: '' } : await npmPack(join(ROOT, 'modules/node'), await tempDir(t))

for (const { runner, summary } of RECIPES) {
  t.test(
    `${runner}: a global setup starts one container, two workers each test in their own namespace`,
    { skip, timeout: INSTALL_TIMEOUT_MS + 4 * RUN_TIMEOUT_MS },
    async (t) => {
      const consumer = await tempDir(t)
      await cp(join(ROOT, 'examples', runner), consumer, {
        recursive: true,
        filter: (source) => !source.includes('node_modules'),
      })
      const install = await npm(
        ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball],
        consumer,
        INSTALL_TIMEOUT_MS,
      )
      t.equal(
        install.code,
        0,
        `npm install of the tarball and the pinned runner${install.code ? `:\n${install.output}` : ''}`,
      )
      if (install.code !== 0) return

      const green = await npm(['test'], consumer, RUN_TIMEOUT_MS)
      t.equal(green.code, 0, `npm test passes${green.code ? `:\n${green.output}` : ''}`)
      t.same(counts(summary, green.output), { passed: 2, failed: 0 }, 'the runner counts two tests passed')
      const runs = reports(green.output)
      t.equal(runs.length, 2, 'two tests reported their namespace')
      t.equal(new Set(runs.map((run) => run.namespace)).size, 2, 'each its own namespace')
      t.equal(new Set(runs.map((run) => run.worker)).size, 2, 'each in its own worker process')
      t.same(await leftBehind(t, green.output), [], 'which the run stopped and removed')

      // A recipe whose test fails must fail its run, and still stop its container.
      const testFile = async (animal: string) =>
        join(consumer, (await readdir(consumer)).find((name) => name.startsWith(`${animal}.test.`)) ?? '')
      const file = await testFile('dog')
      const source = await readFile(file, 'utf8')
      t.ok(source.includes('201'), 'the dog test checks the 201 of createPet')
      await writeFile(file, source.replace('201', '299'))
      const red = await npm(['test'], consumer, RUN_TIMEOUT_MS)
      t.not(red.code, 0, 'npm test fails when a test fails')
      const redCounts = counts(summary, red.output)
      t.same(
        redCounts,
        { passed: 1, failed: 1 },
        `one test failed, the other passed${redCounts ? '' : `:\n${red.output}`}`,
      )
      t.same(await leftBehind(t, red.output), [], 'which the failed run stopped and removed all the same')

      // Every test passes, but the end-of-suite coverage check finds listOrders never called: the
      // run fails. (In the green run, the call it counted was made in a namespace since deleted.)
      await writeFile(file, source)
      const tortoise = await testFile('tortoise')
      const tortoiseSource = await readFile(tortoise, 'utf8')
      const ordersCall = /^.*'\/store\/orders'.*\n/m
      t.match(tortoiseSource, ordersCall, 'the tortoise test calls listOrders')
      await writeFile(tortoise, tortoiseSource.replace(ordersCall, ''))
      const uncovered = await npm(['test'], consumer, RUN_TIMEOUT_MS)
      t.same(counts(summary, uncovered.output), { passed: 2, failed: 0 }, 'every test passes')
      t.not(uncovered.code, 0, 'but the run fails on its end-of-suite coverage check')
      t.match(
        uncovered.output,
        /listOrders \(GET \/v1\/store\/orders\), every namespace: never exercised default/,
        'naming the response never exercised',
      )
      t.same(await leftBehind(t, uncovered.output), [], 'and still stops its container')
    },
  )
}
