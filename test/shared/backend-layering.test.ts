// PostgreSQL is a namespace backend below the registry: nothing it imports, however far, reaches
// the registry (src/namespaces/namespaces.ts) or the request path; and the registry, the request
// path and the control API know only the backend's interface, never src/shared, nor branch on it.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import madge from 'madge'
import t from 'tap'
import { ROOT } from '../support/sandbox.js'

const graph = async (): Promise<Record<string, string[]>> =>
  (
    await madge(join(ROOT, 'src'), {
      fileExtensions: ['ts'],
      tsConfig: join(ROOT, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
    })
  ).obj()

/** Every module `from` imports, however far. */
function reach(imports: Record<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>()
  const next = [from]
  for (let file = next.pop(); file !== undefined; file = next.pop())
    for (const imported of imports[file] ?? []) if (!seen.has(imported) && seen.add(imported)) next.push(imported)
  return seen
}

t.test('src/shared reaches neither the namespace registry nor the request path', async (t) => {
  const imports = await graph()
  const shared = Object.keys(imports).filter((file) => file.startsWith('shared/'))
  t.ok(shared.includes('shared/shared-namespaces.ts'), 'the backend is in the graph')
  const above = ['namespaces/namespaces.ts', 'control/request-control.ts', 'control/control-api.ts', 'sandbox.ts']
  for (const file of shared)
    t.same(
      [...reach(imports, file)].filter((reached) => above.includes(reached)),
      [],
      file,
    )
})

t.test('the registry, the request path and the control API never import src/shared', async (t) => {
  const imports = await graph()
  for (const file of ['namespaces/namespaces.ts', 'control/request-control.ts', 'control/control-api.ts'])
    t.same(
      [...reach(imports, file)].filter((reached) => reached.startsWith('shared/')),
      [],
      file,
    )
})

t.test('nothing in src/namespaces, src/control or src/verification asks whether namespaces are shared', async (t) => {
  const asking = ['src/namespaces', 'src/control', 'src/verification'].flatMap((folder) =>
    readdirSync(join(ROOT, folder))
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        readFileSync(join(ROOT, folder, file), 'utf8')
          .split('\n')
          .map((line, index) => `${folder}/${file}:${index + 1}: ${line.trim()}`)
          .filter((line) => /\bsharing\b|\.shared\b|\bshared:/.test(line)),
      ),
  )
  t.same(asking, [])
})
