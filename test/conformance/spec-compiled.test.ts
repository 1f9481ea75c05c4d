// The spec compiled at build time must behave exactly like the spec compiled at start.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import standalone from 'ajv/dist/standalone/index.js'
import { compiledSpecSource, loadCompiledOperations, loadCompiledSpec } from '../../src/contract/compiled.js'
import { controlSpecSourceText, createAjv, loadSpec, loadSpecFile } from '../../src/contract/load.js'
import { type ApiSpec, type SpecOperations } from '../../src/contract/types.js'
import { CONTROL_SPEC_FILE, SPEC_FILE } from '../../src/paths.js'
import { ROOT } from '../support/sandbox.js'

/** Writes the compiled module where it can resolve ajv's runtime (inside the project) and returns its URL. */
async function writeCompiled(t: Test, source: string): Promise<URL> {
  const cache = join(ROOT, 'node_modules', '.cache')
  await mkdir(cache, { recursive: true })
  const dir = await mkdtemp(join(cache, 'spec-compiled-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'spec.compiled.mjs')
  await writeFile(file, source)
  return pathToFileURL(file)
}

const INPUTS: Record<string, unknown[]> = {
  body: [
    { name: 'Rex', categoryId: 1 },
    { name: 'Rex', categoryId: '1' },
    { name: 'Rex', categoryId: 2 ** 60 },
    { name: 'Rex', categoryId: 1.5 },
    {},
    { name: 1 },
    { name: 'Rex', categoryId: 1, status: 'lost' },
    [],
    null,
  ],
  query: [
    {},
    { limit: 0 },
    { limit: 101 },
    { limit: 50, status: 'sold' },
    { limit: 'abc' },
    { status: 'lost' },
    { limit: 2 ** 40 },
  ],
  path: [{ petId: 1 }, { petId: 'x' }, { petId: 2 ** 60 }, {}],
}

function behaviour(spec: SpecOperations & Partial<ApiSpec>): unknown[] {
  const seen: unknown[] = []
  for (const op of spec.operations) {
    for (const [where, validate] of [
      ['query', op.validateQuery],
      ['path', op.validatePath],
      ['body', op.requestBody?.validate],
    ] as const) {
      if (!validate) continue
      for (const input of INPUTS[where] ?? []) {
        const copy = structuredClone(input)
        seen.push([op.operationId, where, validate(copy), validate.errors ?? null, copy])
      }
    }
  }
  const { validatePet } = spec
  if (validatePet)
    for (const pet of [
      { id: 1, name: 'A', categoryId: 1, status: 'sold' },
      { id: 1.5, name: 'A', categoryId: 1 },
    ])
      seen.push(['Pet', validatePet(pet), validatePet.errors ?? null])
  return seen
}

// As JSON: dates as text, an undefined field the same as a missing one, validators by their presence.
const shape = (spec: SpecOperations & Partial<ApiSpec>) =>
  JSON.parse(
    JSON.stringify({
      ...spec,
      validatePet: undefined,
      validatePets: undefined,
      operations: spec.operations.map((op) => ({
        ...op,
        validateQuery: !!op.validateQuery,
        validatePath: !!op.validatePath,
        requestBody: op.requestBody && { required: op.requestBody.required },
      })),
    }),
  )

const SPECS = [
  {
    name: 'the API',
    file: SPEC_FILE,
    text: () => readFile(SPEC_FILE, 'utf8'),
    atStart: (path: string): Promise<SpecOperations> => loadSpec(path),
    compiled: loadCompiledSpec,
  },
  {
    // Its operations alone: a start serves no document of it and reads none of its schemas.
    name: 'the control API',
    file: CONTROL_SPEC_FILE,
    text: async () => controlSpecSourceText(),
    atStart: async (path: string): Promise<SpecOperations> => {
      const { basePath, operations } = await loadSpecFile(path)
      return { basePath, operations }
    },
    compiled: loadCompiledOperations,
  },
]

for (const { name, file, text, atStart, compiled } of SPECS) {
  t.test(
    `${name}: the compiled spec has the same operations and validators as the spec compiled at start`,
    async (t) => {
      const source = await text()
      const runtime = await atStart(fileURLToPath(file))
      const module = await writeCompiled(
        t,
        compiledSpecSource(runtime, source, createAjv(), (ajv, validate) => standalone.default(ajv, validate)),
      )
      const built = await compiled(source, module)
      if (!built) throw new Error('the compiled spec was not loaded')
      t.same(shape(built), shape(runtime), 'same base path and operations, and document and schemas where kept')
      t.same(
        behaviour(built),
        behaviour(runtime),
        'every validator answers the same, with the same errors and defaults',
      )
      t.equal(
        await compiled(`${source}\n# edited after the build\n`, module),
        undefined,
        'a spec edited since the build is compiled at start instead',
      )
      t.equal(
        await compiled(source, new URL('./missing.compiled.js', module)),
        undefined,
        'no compiled module (running from src/): compiled at start',
      )
    },
  )
}
