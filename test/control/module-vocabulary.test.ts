// One vocabulary across the four modules: each control client names each operation of the control
// API by its operationId (in the language's own case), and the assertions by one table of names.
// Read from the modules' sources, so a module that names a thing its own way fails here.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from '../support/sandbox.js'

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')
const readAll = (dir: string, suffix: string, skip?: RegExp): string =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith(suffix) && !skip?.test(name))
    .map((name) => read(join(dir, name)))
    .join('\n')

const operationIds = [...read('spec/admin.openapi.yaml').matchAll(/^\s+operationId: (\w+)$/gm)].map(
  (m) => m[1] as string,
)
/** The assertions every module has, in camel case. */
const ASSERTIONS = [
  'assertAllResponsesExercised',
  'assertAwaited',
  'assertNoDeprecatedCalls',
  'assertNoStrayCalls',
  'assertVerified',
]

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
const pascal = (name: string): string => name[0]?.toUpperCase() + name.slice(1)

const MODULES = [
  {
    module: 'node',
    // The operations are the generated types' (openapi-fetch calls them by path), the assertions the client's.
    source: read('modules/node/src/admin-types.ts') + read('modules/node/src/client.ts'),
    defines: (name: string) => new RegExp(`^ {4}${name}: \\{$|^ {2}async ${name}\\(`, 'm'),
  },
  {
    module: 'python',
    // The operations are the generated client's modules (control_api/api/<tag>/<operationId>.py), the assertions the package's.
    source:
      readdirSync(join(ROOT, 'modules/python/src/animal_store_testcontainers/control_api/api'), { recursive: true })
        .map(String)
        .join('\n') +
      '\n' +
      read('modules/python/src/animal_store_testcontainers/assertions.py'),
    defines: (name: string) => new RegExp(`(?:^|/)${snake(name)}\\.py$|^def ${snake(name)}\\(`, 'm'),
  },
  {
    module: 'java',
    // The operations are generated from the spec at each build (pom.xml), named by their operationIds.
    generatedAtBuild: /<inputSpec>\$\{project\.basedir\}\/\.\.\/\.\.\/spec\/admin\.openapi\.yaml<\/inputSpec>/.test(
      read('modules/java/pom.xml'),
    ),
    source: readAll('modules/java/src/main/java/dev/animalstore/testcontainers/control', '.java'),
    defines: (name: string) => new RegExp(`^ {4}public \\S+ ${name}\\(`, 'm'),
  },
  {
    module: 'go',
    source: readAll('modules/go/animalstore/control', '.go', /_test\.go$/),
    // Go writes an initialism in capitals (GetTLSCa).
    defines: (name: string) => new RegExp(`^func \\([^)]*\\) ${pascal(name)}\\(`, 'mi'),
  },
]

t.ok(operationIds.length >= 15, `the control API spec's operationIds were read (${operationIds.length})`)

for (const { module, source, defines, generatedAtBuild } of MODULES) {
  t.test(`${module}: every operation by its operationId, every assertion by the shared name`, async (t) => {
    if (generatedAtBuild !== undefined)
      t.ok(generatedAtBuild, `${module} generates every operation from spec/admin.openapi.yaml at each build`)
    for (const name of [...(generatedAtBuild ? [] : operationIds), ...ASSERTIONS])
      t.match(source, defines(name), `${module} defines ${name}`)
  })
}
