// A service under test whose call to the Animal Store (here the sandbox) comes from a background
// job, instrumented with the OpenTelemetry Node SDK. It names no namespace itself: the trace
// context and baggage of the request that queued the job reach the sandbox only because the
// instrumentation passes them on. CommonJS-style (node:http through require), it needs no hook.
//
//   SANDBOX_URL      the API's base URL (http://127.0.0.1:<port>/v1)
//   SANDBOX_API_KEY  its key
//   PORT             where to listen (0: any free port); prints "listening on <port>" once ready
// The recipe's SDK first (its context manager, the W3C propagators, the http and undici
// instrumentations); then node:http, through require, which is what the instrumentation patches.
import '../../../examples/service-under-test/telemetry.mjs'
import { createRequire } from 'node:module'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { context } from '@opentelemetry/api'

const http = createRequire(import.meta.url)('node:http') as typeof import('node:http')

const sandboxUrl = required('SANDBOX_URL')
const apiKey = required('SANDBOX_API_KEY')

function required(name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is required`)
  return value
}

/** Jobs held back until POST /release: a test decides when a late job runs. */
const held: Array<() => void> = []

/**
 * POST /adopt-later: answers 202 at once, and adds a pet from a background job, after a random
 * 0 to 2 s (or, with ?held, once POST /release comes). The job runs in the request's context: the
 * instrumentation passes its trace and baggage on, as a queue consumer's would.
 */
function adoptLater(url: URL, res: ServerResponse): void {
  const name = url.searchParams.get('name') ?? 'Later'
  const job = (): void => {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
    const body = JSON.stringify({ name, categoryId: 1 })
    fetch(`${sandboxUrl}/pets`, { method: 'POST', headers, body }).then(
      (created) => created.body?.cancel(),
      (error: unknown) => console.error('the job failed', error),
    )
  }
  // Held, it runs from another request: bound to this one's context, as a queued job carries its own.
  if (url.searchParams.has('held')) held.push(context.bind(context.active(), job))
  else setTimeout(job, Math.random() * 2000)
  res.writeHead(202).end()
}

const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url ?? '/', 'http://service')
  if (req.method === 'POST' && url.pathname === '/adopt-later') return adoptLater(url, res)
  if (req.method === 'POST' && url.pathname === '/release') {
    for (const job of held.splice(0)) job()
    return void res.writeHead(204).end()
  }
  res.writeHead(404).end()
})
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  console.log(`listening on ${(server.address() as AddressInfo).port}`)
})
