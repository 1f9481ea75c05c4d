// Writes dist/spec.compiled.js and dist/admin-spec.compiled.js (or into the folder given as its
// argument): the specs with their validators precompiled (see src/contract/compiled.ts). Run by
// `npm run build` after tsc (and by the Dockerfile). It reports on stderr: `npm pack --json` owns stdout.
import { readFile, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import standalone from 'ajv/dist/standalone/index.js'
import { compiledSpecSource } from '../src/contract/compiled.js'
import { controlSpecSourceText, createAjv, loadSpec, loadSpecFile } from '../src/contract/load.js'
import { CONTROL_SPEC_FILE, SPEC_FILE } from '../src/paths.js'

const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)))
const write = (
  ajv: Parameters<typeof compiledSpecSource>[2],
  validate: Parameters<Parameters<typeof compiledSpecSource>[3]>[1],
): string => standalone.default(ajv, validate)

// Copies of the specs' paths, so that they are compiled now rather than loaded compiled.
const spec = await loadSpec(fileURLToPath(SPEC_FILE))
await writeFile(
  join(outDir, 'spec.compiled.js'),
  compiledSpecSource(spec, await readFile(SPEC_FILE, 'utf8'), createAjv(), write),
)
// The control API's operations alone: nothing serves its document or reads its schemas.
const controlSpec = await loadSpecFile(fileURLToPath(CONTROL_SPEC_FILE))
await writeFile(
  join(outDir, 'admin-spec.compiled.js'),
  compiledSpecSource(
    { basePath: controlSpec.basePath, operations: controlSpec.operations },
    controlSpecSourceText(),
    createAjv(),
    write,
  ),
)
process.stderr.write(
  `compiled the API spec (${spec.operations.length} operations) and the control API spec (${controlSpec.operations.length}) into ${relative(process.cwd(), outDir)}/\n`,
)
