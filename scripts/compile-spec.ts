// Writes dist/spec.compiled.js: the spec with its validators precompiled (see src/spec-compiled.ts).
// Run by `npm run build` after tsc (and by the Dockerfile). It reports on stderr: `npm pack --json` owns stdout.
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import standalone from 'ajv/dist/standalone/index.js'
import { compiledSpecSource } from '../src/spec-compiled.js'
import { SPEC_FILE, createAjv, loadSpec } from '../src/spec.js'

const text = await readFile(SPEC_FILE, 'utf8')
// A copy of the spec's path, so that loadSpec compiles it now rather than load a compiled one.
const spec = await loadSpec(fileURLToPath(SPEC_FILE))
const target = new URL('../dist/spec.compiled.js', import.meta.url)
// Any instance with the same options writes the code: it reads each validator's own source.
await writeFile(target, compiledSpecSource(spec, text, createAjv(), (ajv, validate) => standalone.default(ajv, validate)))
process.stderr.write(`compiled ${spec.operations.length} operations of the spec into ${fileURLToPath(target)}\n`)
