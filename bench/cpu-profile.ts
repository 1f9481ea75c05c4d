// Where a sandbox process spent its CPU: the summary of a `node --cpu-prof` profile, by function
// (self time: the function's own code) and by source file, the idle time left out.
//
//   tsx bench/cpu-profile.ts FILE.cpuprofile [--top 25]
import { readFile } from 'node:fs/promises'
import { relative } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT } from './servers.js'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly children?: number[]
}

interface Profile {
  readonly nodes: ProfileNode[]
  readonly samples: number[]
  readonly timeDeltas: number[]
}

/** Where a frame's code lives: a project file, a package, or node's own code. */
function placeOf(url: string): string {
  if (url === '') return '(native)'
  const path = url.replace(/^file:\/\//, '')
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1]
  if (inPackage) return inPackage
  if (path.startsWith('node:')) return path
  return relative(ROOT, path)
}

const NOT_WORK = new Set(['(idle)', '(program)', '(garbage collector)'])

function summarise(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfUs = new Map<number, number>()
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const functions = new Map<string, number>()
  const places = new Map<string, number>()
  let busy = 0
  let gc = 0
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame
    if (functionName === '(garbage collector)') gc += us
    if (NOT_WORK.has(functionName) && functionName !== '(garbage collector)') continue
    busy += us
    const place = placeOf(url)
    const name = `${functionName || '(anonymous)'} ${place}${url ? `:${lineNumber + 1}` : ''}`
    functions.set(name, (functions.get(name) ?? 0) + us)
    places.set(place, (places.get(place) ?? 0) + us)
  }
  const share = (us: number): string => `${((100 * us) / busy).toFixed(1)}%`
  const rows = (map: Map<string, number>): string[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `| ${share(us)} | ${(us / 1000).toFixed(0)} | \`${name}\` |`)
  return [
    `busy ${(busy / 1000).toFixed(0)} ms (garbage collection ${share(gc)})`,
    '',
    '| self | ms | function |',
    '| ---: | ---: | --- |',
    ...rows(functions),
    '',
    '| self | ms | where |',
    '| ---: | ---: | --- |',
    ...rows(places),
  ].join('\n')
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' } } })
for (const file of positionals) {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile
  console.log(`## ${file}\n\n${summarise(profile, Number(values.top ?? 25))}\n`)
}
