// Bundles the command, src/cli.ts and everything it imports, into the one file dist/cli.js. A
// start then reads and compiles one file instead of resolving some sixty modules one by one,
// which was a third of the cold start. The library entries (dist/index.js; the module and client in modules/node/dist)
// stay as tsc wrote them.
//
// Left out, and loaded from node_modules when needed: faker and json-schema-faker (a SEED only),
// the MCP SDK (an agent's first call to /mcp, or the mcp command), the OpenTelemetry SDK (OTEL_*),
// prom-client (a first scrape of /metrics), node-forge (TLS=auto),
// the $ref resolver (a spec that was not precompiled), and what src/ loads through createRequire
// (yaml, ajv) or by URL (the precompiled specs in dist/*.compiled.js).
import { build, type Plugin } from 'esbuild'
import { builtinModules } from 'node:module'
import { rename, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('../src/cli.ts', import.meta.url))
// Into dist/, or into the folder given as the argument (npm run build builds aside first).
const cli = join(resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url))), 'cli.js')

// Node's own modules through require(), not import. An import of a builtin makes its ES module
// facade, which reads every export once, and from Node 22 on node:http exports getters (WebSocket,
// fetch's classes) that load undici: on Node 24, a quarter of the start went to facades alone. A
// require() returns the plain exports object, whose getters run only when used.
const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(build) {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))
    build.onResolve({ filter: /^[a-z_:/]+$/ }, ({ path, namespace }) => {
      if (!builtins.has(path)) return undefined
      // The require() in the stand-in below is Node's own.
      if (namespace === 'builtin') return { path, external: true }
      return { path: path.replace(/^(node:)?/, 'node:'), namespace: 'builtin' }
    })
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)})`,
      loader: 'js',
    }))
  },
}

// From src/, never from dist/cli.js itself, so that a second run (or a build running beside this
// one) cannot bundle a bundle; each file is written aside and renamed over its place, so that a
// start never reads half of one.
const { outputFiles } = await build({
  entryPoints: [entry],
  outfile: cli,
  write: false,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Maps point into src/ and node_modules: no copies of the sources inside them.
  sourcesContent: false,
  plugins: [builtinsByRequire],
  external: [
    '@faker-js/faker',
    'json-schema-faker',
    '@apidevtools/json-schema-ref-parser',
    '@modelcontextprotocol/sdk',
    'prom-client',
    'node-forge',
    // The PostgreSQL client, which only a start with DATABASE_URL loads.
    'pg',
    // undici's fetch, which only the MCP endpoint over HTTPS loads.
    'undici',
    // An optional package with a native core, which only `pact verify` loads.
    '@pact-foundation/pact-core',
    // The OpenTelemetry SDK, which only a start with OTEL_* export settings loads (src/telemetry/telemetry.ts).
    '@opentelemetry/*',
  ],
  // The CommonJS dependencies (pino) call require(), which an ES module lacks.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  logLevel: 'warning',
})
for (const file of outputFiles) {
  const aside = `${file.path}.${process.pid}.tmp`
  await writeFile(aside, file.path.endsWith('.js') ? asciiOnly(file.text) : file.contents)
  await rename(aside, file.path)
}

/**
 * The bundle with every character past ASCII escaped (esbuild escapes those of strings, but keeps
 * comments as written). One arrow in a comment made V8 hold the whole 600 KB source as two-byte
 * text, which it scans slower and measures for line ends: 2% of a start's instructions.
 */
function asciiOnly(source: string): string {
  // \uXXXX per UTF-16 unit: the one escape that means the same in a comment, string, template,
  // identifier and regular expression (with or without its u flag).
  return source.replace(/[^\0-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
