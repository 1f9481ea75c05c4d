// src/contract/api-types.ts and the two admin-types.ts (the server's, and modules/node's) are generated from the specs (npm run gen:types)
// and committed: each must be exactly what the generator makes from its spec as it is now.
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { ROOT } from '../support/sandbox.js'

const GENERATOR = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js')

for (const [spec, types] of [
  ['spec/openapi.yaml', 'src/contract/api-types.ts'],
  ['spec/admin.openapi.yaml', 'src/contract/admin-types.ts'],
  ['spec/admin.openapi.yaml', 'modules/node/src/admin-types.ts'],
] as const) {
  t.test(`${types} is what openapi-typescript generates from ${spec}`, async (t) => {
    const { stdout } = await promisify(execFile)(process.execPath, [GENERATOR, join(ROOT, spec)], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    })
    const committed = await readFile(join(ROOT, types), 'utf8')
    t.ok(stdout.length > 0, 'the generator produced types')
    // A plain equality check: tap's diff of the two files says what changed. Fix: npm run gen:types
    t.equal(committed, stdout, `${types} is stale: run npm run gen:types and commit the result`)
  })
}

t.test('the generator is the pinned devDependency', async (t) => {
  const require = createRequire(import.meta.url)
  const pkg = require(join(ROOT, 'package.json')) as { devDependencies: Record<string, string> }
  const { version } = require('openapi-typescript/package.json') as { version: string }
  t.equal(version, pkg.devDependencies['openapi-typescript'])
})
