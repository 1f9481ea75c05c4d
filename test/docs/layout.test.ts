// The source tree's shape, as CONTRIBUTING.md states it: no import circle in src/ (type-only
// imports included), and no hand-written file there over 300 lines.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import madge from 'madge'
import t from 'tap'
import { ROOT } from '../support/sandbox.js'

const MAX_LINES = 300

t.test('src/ has no import circle, type-only imports included', async (t) => {
  const graph = await madge(join(ROOT, 'src'), {
    fileExtensions: ['ts'],
    tsConfig: join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
  })
  t.ok(Object.keys(graph.obj()).length > 50, 'the graph holds the tree')
  t.same(graph.circular(), [])
})

t.test(`no hand-written file in src/ is over ${MAX_LINES} lines`, async (t) => {
  const git = (...args: string[]): string[] =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean)
  const files = git('ls-files', 'src').filter((file) => /\.(ts|mjs|js)$/.test(file))
  const generated = new Set(
    git('check-attr', 'linguist-generated', '--', ...files)
      .filter((line) => line.endsWith(': set') || line.endsWith(': true'))
      .map((line) => line.split(':')[0]),
  )
  const over = files
    .filter((file) => !generated.has(file))
    .map((file) => [file, readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1] as const)
    .filter(([, lines]) => lines > MAX_LINES)
  t.same(over, [], 'files over the limit, with their lines')
})
