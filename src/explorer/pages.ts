// GET / (about), GET /docs (Swagger UI from node_modules, nothing fetched elsewhere) and the spec for
// tools, whose servers list starts with this sandbox so that "try it" and clients talk to it.
import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { TLSSocket } from 'node:tls'
import { dirname, join } from 'node:path'
import { pipeline, Readable } from 'node:stream'
import type { Polka } from 'polka'
import { STABILITIES, type ApiSpec, type Stability } from '../contract/types.js'
import { DOCS_CSP, escapeHtml, EXPLORER_SCRIPT, htmlPage, JOURNAL_SCRIPT } from './browser-side.js'
import { coveragePage, type CoverageReport } from './coverage-page.js'
import { journalPage } from './journal-page.js'

/** What the pages say about this sandbox. Keys are secrets: only the documented default is ever shown. */
export interface SandboxFacts {
  /** The documented default key when it is in force, else undefined (configured keys are never shown). */
  readonly defaultApiKey: string | undefined
  readonly data: {
    /** Where the pets came from at start: the data file, the fixtures, or a seed. */
    readonly source: 'data file' | 'fixtures' | 'seed'
    readonly description: string
    readonly seed: number | null
    readonly count: number
    /** The data file, or null when the store lives in memory only. */
    readonly file: string | null
  }
  readonly corsOrigins: readonly string[]
  /** Operations below this x-stability are refused (MIN_STABILITY). */
  readonly minStability: Stability
}

const require = createRequire(import.meta.url)
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'))

/** The only files of the bundle the page uses; nothing else under /docs is served. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-bundle.js.map': 'application/json; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}
const SECURITY_SCHEME = 'bearerAuth'
/** The coverage page: test data, guarded as the control API is (src/app.ts). */
export const COVERAGE_PAGE = '/docs/coverage'
/** Guarded as the coverage page is, though its script reads the data. */
export const JOURNAL_PAGE = '/docs/journal'

export interface ExplorerOptions {
  readonly spec: ApiSpec
  readonly facts: SandboxFacts
  /**
   * A namespace's coverage (every one's when none is named), undefined for an unknown one; `named`
   * when the request may see namespace names (it throws a 401 when it may not). Unset: no page.
   */
  readonly coverage?:
    | ((req: IncomingMessage, namespace: string | undefined) => { report: CoverageReport; named: boolean } | undefined)
    | undefined
  /** The control API's base path, for the journal page's script; no journal page without it. */
  readonly controlApiPath?: string | undefined
}

export function mountExplorer(app: Polka, { spec, facts, coverage, controlApiPath }: ExplorerOptions): void {
  const { specJsonPath, specYamlPath } = specDocumentPaths(spec)
  const assets = new Map<string, Promise<Buffer>>()

  app.get('/', (req, res) => {
    const links = {
      docs: '/docs',
      openapiJson: specJsonPath,
      openapiYaml: specYamlPath,
      health: '/healthz',
      api: serverUrl(req, spec),
    }
    const vary = res.getHeader('Vary')
    res.setHeader('Vary', vary ? `${String(vary)}, Accept` : 'Accept')
    if (prefersJson(req)) {
      send(
        res,
        'application/json; charset=utf-8',
        JSON.stringify({ name: 'Animal Store sandbox', description: ABOUT, links, settings: settingsOf(facts) }),
      )
    } else {
      send(res, 'text/html; charset=utf-8', landingPage(links, facts))
    }
  })

  const docs = (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('Content-Security-Policy', DOCS_CSP)
    send(res, 'text/html; charset=utf-8', docsPage(spec, facts, specJsonPath, serverUrl(req, spec)))
  }
  app.get('/docs', docs)
  app.get('/docs/', docs)
  app.get('/docs/explorer.js', (_req, res) => send(res, 'text/javascript; charset=utf-8', EXPLORER_SCRIPT))
  if (coverage) {
    app.get(COVERAGE_PAGE, (req, res, next) => {
      const name = new URLSearchParams(req.search ?? '').get('namespace') ?? undefined
      const shown = coverage(req, name)
      if (shown === undefined) return next() // an unknown namespace: the 404 of any unknown page
      res.setHeader('Cache-Control', 'no-store')
      res.setHeader('Content-Security-Policy', DOCS_CSP)
      send(res, 'text/html; charset=utf-8', coveragePage(shown.report, shown.named))
    })
  }
  if (controlApiPath !== undefined) {
    const page = journalPage(spec, `${controlApiPath}/requests`)
    app.get(JOURNAL_PAGE, (_req, res) => {
      res.setHeader('Content-Security-Policy', DOCS_CSP)
      send(res, 'text/html; charset=utf-8', page)
    })
    app.get('/docs/journal.js', (_req, res) => send(res, 'text/javascript; charset=utf-8', JOURNAL_SCRIPT))
  }
  app.get('/docs/:asset', async (req, res, next) => {
    const asset = req.params['asset'] ?? ''
    const type = ASSETS[asset]
    if (type === undefined) return next()
    let body = assets.get(asset)
    if (!body) assets.set(asset, (body = readFile(join(SWAGGER_UI_DIR, asset))))
    res.setHeader('Cache-Control', 'public, max-age=3600')
    send(res, type, await body)
  })
}

const specDocumentPaths = (spec: ApiSpec) => ({
  specJsonPath: `${spec.basePath}/openapi.json`,
  specYamlPath: `${spec.basePath}/openapi.yaml`,
})

export function mountSpecDocuments(app: Polka, { spec }: ExplorerOptions): void {
  const { specJsonPath, specYamlPath } = specDocumentPaths(spec)
  app.get(specJsonPath, (req, res) => {
    const document = { ...spec.document, servers: serversFor(req, spec) }
    send(res, 'application/json; charset=utf-8', JSON.stringify(document, null, 2))
  })
  app.get(specYamlPath, (req, res) => {
    // yaml is loaded by the first request for it, not at every start.
    const { stringify } = require('yaml') as typeof import('yaml')
    send(res, 'application/yaml; charset=utf-8', stringify({ ...spec.document, servers: serversFor(req, spec) }))
  })
}

const ABOUT =
  'A stand-in for the Animal Store API for integration tests: the real contract (spec/openapi.yaml) served with bearer auth, strict validation and seeded, persisted data.'

function settingsOf(facts: SandboxFacts) {
  return {
    data: facts.data.description,
    dataSource: facts.data.source,
    seed: facts.data.seed,
    count: facts.data.count,
    dataFile: facts.data.file ?? ':memory:',
    apiKey:
      facts.defaultApiKey === undefined ? 'configured (not shown)' : `${facts.defaultApiKey} (the documented default)`,
    corsOrigins: facts.corsOrigins,
    minStability: facts.minStability,
  }
}

/** The sandbox first (as the client reached it), then the spec's own servers for reference. */
function serversFor(req: IncomingMessage, spec: ApiSpec): unknown[] {
  const own = (spec.document['servers'] as unknown[] | undefined) ?? []
  return [{ url: serverUrl(req, spec), description: 'This sandbox' }, ...own]
}

/** The API's URL as this client reaches it (behind a port mapping too); relative when the Host header is unusable. */
function serverUrl(req: IncomingMessage, spec: ApiSpec): string {
  const host = req.headers.host
  const usable = host !== undefined && /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http'
  return usable ? `${scheme}://${host}${spec.basePath}` : spec.basePath
}

function prefersJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? ''
  return accept.includes('application/json') && !accept.includes('text/html')
}

/** The part of a large body written ahead of what the client has read. */
const CHUNK_BYTES = 16 * 1024

function send(res: ServerResponse, type: string, body: string | Buffer): void {
  res.statusCode = 200
  res.setHeader('Content-Type', type)
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.setHeader('X-Content-Type-Options', 'nosniff')
  if (typeof body === 'string' || body.length <= CHUNK_BYTES) return void res.end(body)
  // As the client reads it: over HTTP/2 a body queued whole counts against its session's memory,
  // and a few bundles at once would have the session refuse the next streams.
  // A client that goes away ends it; there is no one left to answer.
  pipeline(Readable.from(chunksOf(body)), res, () => undefined)
}

function* chunksOf(body: Buffer): Generator<Buffer> {
  for (let at = 0; at < body.length; at += CHUNK_BYTES) yield body.subarray(at, at + CHUNK_BYTES)
}

function deprecationNotes(spec: ApiSpec): string {
  return spec.operations
    .filter((op) => op.deprecated)
    .map((op) => {
      const sunset = op.sunset
        ? ` It is removed on <strong>${escapeHtml(op.sunset.toUTCString().slice(0, 16))}</strong> (its responses carry <code>Sunset: ${escapeHtml(op.sunset.toUTCString())}</code>).`
        : ''
      const instead = op.replacement
        ? ` Use <code>GET ${escapeHtml(spec.basePath + op.replacement)}</code> instead.`
        : ''
      return `<p class="deprecated"><strong>Deprecated:</strong> <code>${op.method} ${escapeHtml(spec.basePath + op.path)}</code> (${escapeHtml(op.operationId)}).${sunset}${instead}</p>`
    })
    .join('\n')
}

/** Operations marked experimental or beta, and whether this sandbox serves them. */
function stabilityNotes(spec: ApiSpec, facts: SandboxFacts): string {
  return spec.operations
    .filter((op) => op.stability !== 'stable')
    .map((op) => {
      const refused = STABILITIES.indexOf(op.stability) < STABILITIES.indexOf(facts.minStability)
      const served = refused
        ? ` This sandbox refuses it (<code>MIN_STABILITY=${escapeHtml(facts.minStability)}</code>): <code>403 unstable_operation</code>.`
        : ' Its answers carry <code>X-Stability: ' + escapeHtml(op.stability) + '</code>.'
      return `<p class="stability"><strong>${escapeHtml(op.stability[0]?.toUpperCase() + op.stability.slice(1))}:</strong> <code>${op.method} ${escapeHtml(spec.basePath + op.path)}</code> (${escapeHtml(op.operationId)}) is marked <code>x-stability: ${escapeHtml(op.stability)}</code>.${served}</p>`
    })
    .join('\n')
}

function docsPage(spec: ApiSpec, facts: SandboxFacts, specUrl: string, apiUrl: string): string {
  // JSON inside a script element: escaping "<" keeps "</script>" from ending it early.
  const config = JSON.stringify({
    specUrl,
    apiKey: facts.defaultApiKey ?? null,
    securityScheme: SECURITY_SCHEME,
  }).replace(/</g, '\\u003c')
  const keyNote = facts.defaultApiKey
    ? `"Try it out" calls it with the default key <code>${escapeHtml(facts.defaultApiKey)}</code>, already filled in.`
    : 'API keys are configured: press <em>Authorize</em> and enter yours before "Try it out".'
  return htmlPage(
    'Animal Store sandbox · API explorer',
    `<header class="sandbox">
<h1>Animal Store sandbox</h1>
<p>The contract, served by this sandbox at <code>${escapeHtml(apiUrl)}</code> with ${escapeHtml(facts.data.description)}. ${keyNote}
Spec: <a href="${escapeHtml(specUrl)}">openapi.json</a> · <a href="/">about this sandbox</a></p>
${deprecationNotes(spec)}
${stabilityNotes(spec, facts)}
</header>
<div id="swagger-ui"></div>
<script id="explorer-config" type="application/json">${config}</script>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/explorer.js"></script>`,
    { head: '<link rel="stylesheet" href="/docs/swagger-ui.css">\n' },
  )
}

function landingPage(links: Record<string, string>, facts: SandboxFacts): string {
  const settings = Object.entries(settingsOf(facts))
    .map(
      ([name, value]) =>
        `<dt>${escapeHtml(name)}</dt><dd><code>${escapeHtml(Array.isArray(value) ? value.join(', ') : String(value ?? '–'))}</code></dd>`,
    )
    .join('\n')
  const curlKey = facts.defaultApiKey ?? '<your API key>'
  return htmlPage(
    'Animal Store sandbox',
    `<main class="sandbox">
<h1>Animal Store sandbox</h1>
<p>${escapeHtml(ABOUT)}</p>
<ul>
<li><a href="${links['docs']}">API explorer</a>: the reference, with "try it" on this sandbox's data</li>
<li>The spec for tools: <a href="${escapeHtml(links['openapiJson'] ?? '')}">openapi.json</a>, <a href="${escapeHtml(links['openapiYaml'] ?? '')}">openapi.yaml</a></li>
<li><a href="${links['health']}">/healthz</a>: 200 once the data is loaded</li>
</ul>
<p>Try: <code>curl -H "Authorization: Bearer ${escapeHtml(curlKey)}" ${escapeHtml(links['api'] ?? '')}/pets</code></p>
<h2>Settings in force</h2>
<dl>
${settings}
</dl>
</main>`,
  )
}
