// What makes the image's cold start short (docs/performance.md, "The container image"): its first
// start reads compiled code from the compile cache made at build time, and it loads none of
// fetch's machinery (undici), which ES imports of Node's builtins would load.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { DOCKER, docker, dockerSkipReason, ensureImage, runContainer } from '../support/docker.js'

t.setTimeout(5 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false

/** What the container wrote to stderr (docker logs keeps the two streams apart). */
async function stderrOf(id: string): Promise<string> {
  return (await promisify(execFile)(DOCKER, ['logs', id])).stderr
}

t.test('a first start compiles nothing: every module comes from the compile cache', { skip }, async (t) => {
  await ensureImage()
  // Node says, for each module it compiles, whether V8 took the cached code ("accepted").
  const { id } = await runContainer(t, { env: { DATA_FILE: ':memory:', NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } })
  const verdicts = [...(await stderrOf(id)).matchAll(/V8 code cache for \w+ (\S+) was ([a-z ]+?),/g)].map(
    ([, module, verdict]) => ({ module, verdict }),
  )
  t.ok(
    verdicts.some(({ module }) => module === 'file:///app/dist/cli.js'),
    'the command itself is among the modules looked up',
  )
  t.same(
    verdicts.filter(({ verdict }) => verdict !== 'accepted'),
    [],
    `every module's cached code is taken (${verdicts.length} modules)`,
  )
})

t.test('a start loads no undici: Node builtins are required, not imported', { skip }, async (t) => {
  await ensureImage()
  // An ES import of node:http builds its module facade, which reads every export, and from Node
  // 22 on some of them load undici. moduleLoadList names every internal module the process loaded.
  // (No spaces: NODE_OPTIONS splits on them.)
  const report =
    "--import=data:text/javascript,process.on('exit',()=>process.stderr.write('undici-loaded:'+process.moduleLoadList.some(m=>m.includes('undici'))+'\\n'))"
  const { id } = await runContainer(t, { env: { DATA_FILE: ':memory:', NODE_OPTIONS: report } })
  await docker('stop', '--time', '20', id)
  t.match(await stderrOf(id), /^undici-loaded:false$/m, 'undici was never loaded')
})
