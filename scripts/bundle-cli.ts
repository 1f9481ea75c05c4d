// Bundles the command, dist/cli.js and everything it imports, into that one file, in place. A
// start then reads and compiles one file instead of resolving some sixty modules one by one,
// which was a third of the cold start. The library entries (dist/index.js, dist/testcontainers.js)
// stay as tsc wrote them.
//
// Left out, and loaded from node_modules when needed: faker and json-schema-faker (a SEED only),
// the $ref resolver (a spec that was not precompiled), and what src/ loads through createRequire
// (yaml, ajv) or by URL (the precompiled validators in dist/*.compiled.js).
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url))

await build({
  entryPoints: [cli],
  outfile: cli,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Maps point into src/ and node_modules: no copies of the sources inside them.
  sourcesContent: false,
  external: ['@faker-js/faker', 'json-schema-faker', '@apidevtools/json-schema-ref-parser'],
  // The CommonJS dependencies (pino) call require(), which an ES module lacks.
  banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
  logLevel: 'warning',
})
