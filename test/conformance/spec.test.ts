// The spec is the single source of truth: it lints clean, the server follows it, the committed
// types are what the generator makes from it (npm run gen:types), and every record the sandbox can
// start from is a Pet as it defines one (test/store/seed.test.ts checks a few per seed).
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { DEFAULT_FIXTURES } from '../../src/paths.js'
import { generateAnimals } from '../../src/store/seed.js'
import { describeErrors, loadSpec } from '../../src/contract/load.js'
import { handlers } from '../../src/api/operations.js'
import { redoclyLint, ROOT } from '../support/sandbox.js'

const spec = await loadSpec()

t.test('spec/openapi.yaml passes Redocly lint with no problems', async (t) => {
  const lint = await redoclyLint('spec/openapi.yaml')
  t.equal(lint.code, 0, lint.output)
  t.notMatch(lint.output, /You have \d+ warnings?/, 'no warnings either')
})

t.test('the spec transcribes the interface', async (t) => {
  t.equal(spec.basePath, '/v1', 'both servers end with /v1')
  t.same((spec.document['servers'] as unknown[]).length, 2, 'production and staging')
  const ops = Object.fromEntries(spec.operations.map((op) => [op.operationId, op]))
  t.same(Object.keys(ops).sort(), ['createPet', 'getPet', 'listOrders', 'listPets'])
  t.same(
    Object.keys(ops).sort(),
    Object.keys(handlers).sort(),
    'every operation has a handler and no handler lacks an operation',
  )
  t.ok(
    spec.operations.every((op) => op.secured),
    'bearer security on every operation',
  )
  t.equal(ops['getPet']?.deprecated, true)
  t.equal(ops['getPet']?.sunset?.toISOString(), '2030-12-05T00:00:00.000Z')
  t.same(ops['listPets']?.responses, ['200', '401'])
  t.same(ops['createPet']?.responses, ['201', '400', '401'])
  t.same(ops['getPet']?.responses, ['200', '401', '404'])
  const limit = ops['listPets']?.parameters.find((p) => p.name === 'limit')?.schema
  t.match(limit, { type: 'integer', minimum: 1, maximum: 100, default: 20 })
  t.same((spec.schemas['PetStatus'] as { enum: string[] }).enum, ['available', 'pending', 'sold'])
})

const GENERATOR = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js')

for (const [from, types] of [
  ['spec/openapi.yaml', 'src/contract/api-types.ts'],
  ['spec/admin.openapi.yaml', 'src/contract/admin-types.ts'],
  ['spec/admin.openapi.yaml', 'modules/node/src/admin-types.ts'],
] as const) {
  t.test(`${types} is what openapi-typescript generates from ${from}`, async (t) => {
    const { stdout } = await promisify(execFile)(process.execPath, [GENERATOR, join(ROOT, from)], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    })
    t.ok(stdout.length > 0, 'the generator produced types')
    // A plain equality check: tap's diff of the two files says what changed.
    t.equal(await readFile(join(ROOT, types), 'utf8'), stdout, `${types} is stale: run npm run gen:types and commit it`)
  })
}

t.test('the generator is the pinned devDependency', async (t) => {
  const require = createRequire(import.meta.url)
  const pkg = require(join(ROOT, 'package.json')) as { devDependencies: Record<string, string> }
  const { version } = require('openapi-typescript/package.json') as { version: string }
  t.equal(version, pkg.devDependencies['openapi-typescript'])
})

const problems = (records: readonly unknown[]): string[] =>
  records.flatMap((record, i) =>
    spec.validatePet(record) ? [] : [describeErrors(spec.validatePet.errors, `pet[${i}]`)],
  )

t.test('every record of fixtures/pets.json validates against the spec Pet schema', async (t) => {
  const pets = JSON.parse(await readFile(DEFAULT_FIXTURES, 'utf8')) as unknown[]
  t.ok(pets.length >= 50, `at least 50 pets (${pets.length})`)
  t.same(problems(pets), [])
})

t.test('every one of 500 generated pets validates against the spec Pet schema, each with its own id', async (t) => {
  const pets = await generateAnimals(spec.schemas['Pet'] ?? {}, 987_654, 500)
  t.same(problems(pets), [])
  t.equal(new Set(pets.map((p) => p.id)).size, 500)
})
