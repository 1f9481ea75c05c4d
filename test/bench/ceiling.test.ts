// The benchmark's ceiling (bench/bare-server.mjs) must send, for each benchmarked request, the
// bytes the sandbox sends: status line, headers in order, body. Only Date may differ. Otherwise
// "sandbox vs bare" would compare different answers. So over HTTPS too, and over HTTP/2 the same
// headers and body.
import { readFile } from 'node:fs/promises'
import { connect as http2Connect, type IncomingHttpHeaders } from 'node:http2'
import { join } from 'node:path'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import t from 'tap'
import { SERVERS, startServer } from '../../bench/servers.js'
import { openSocket, serialise, whenClosed } from '../../scripts/lib/raw-http.js'
import { API_KEY, startTestSandbox, tempDir } from '../support/sandbox.js'

const NEW_PET = JSON.stringify({ name: 'Bench', categoryId: 1, status: 'available' })
const REQUESTS = [
  { method: 'GET', target: '/v1/pets?limit=20' },
  { method: 'GET', target: '/v1/pets/7' },
  { method: 'GET', target: '/v1/pets/60' },
  { method: 'POST', target: '/v1/pets', body: NEW_PET },
]

/** One request on a new connection, its answer's bytes without Date; over HTTPS/1.1 trusting `ca` alone. */
async function exchange(port: number, request: (typeof REQUESTS)[number], ca?: string): Promise<string> {
  const headers: Array<[string, string]> = [
    ['Authorization', `Bearer ${API_KEY}`],
    ['Connection', 'close'],
  ]
  if (request.body) headers.push(['Content-Type', 'application/json'])
  const socket = ca === undefined ? await openSocket(port) : await openTlsSocket(port, ca)
  const received = whenClosed(socket)
  socket.write(serialise({ ...request, headers }))
  return (await received).toString('utf8').replace(/^Date: .*\r\n/m, '')
}

function openTlsSocket(port: number, ca: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** One request over HTTP/2 trusting `ca` alone: its headers without date, and its body. */
function overHttp2(origin: string, ca: string, { method, target, body }: (typeof REQUESTS)[number]) {
  return new Promise<{ headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const session = http2Connect(origin, { ca })
    session.on('error', reject)
    const headers = { authorization: `Bearer ${API_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }
    const stream = session.request({ ':method': method, ':path': target, ...headers })
    let answered: IncomingHttpHeaders = {}
    let text = ''
    stream.setEncoding('utf8')
    stream.on('response', ({ date: _date, ...rest }) => (answered = rest))
    stream.on('data', (chunk: string) => (text += chunk))
    stream.on('end', () => {
      session.close()
      resolve({ headers: answered, body: text })
    })
    stream.on('error', reject)
    stream.end(body)
  })
}

for (const durable of [false, true]) {
  const name = durable ? 'the durable bare server' : 'the bare server'
  t.test(`${name} answers with the sandbox bytes${durable ? ', each create on disk first' : ''}`, async (t) => {
    const sandbox = await startTestSandbox(t)
    const file = join(await tempDir(t), 'creates.jsonl')
    const bare = await startServer(durable ? SERVERS.bareDurable : SERVERS.bare, {
      core: undefined,
      env: { DATA_FILE: file },
    })
    t.teardown(() => bare.stop())
    const barePort = Number(new URL(bare.origin).port)
    const sandboxPort = Number(new URL(sandbox.baseUrl).port)
    for (const request of REQUESTS) {
      const fromSandbox = await exchange(sandboxPort, request)
      t.match(fromSandbox, /^HTTP\/1\.1 20[01] /, `${request.method} ${request.target}: the sandbox answers`)
      t.equal(await exchange(barePort, request), fromSandbox, `${request.method} ${request.target}: the same bytes`)
    }
    if (!durable) return
    const create = REQUESTS.find(({ method }) => method === 'POST') as (typeof REQUESTS)[number]
    t.match(await exchange(barePort, create), /^HTTP\/1\.1 201 /, 'a second create answered')
    // Answered means written: both bodies are in the file, one line each, once their 201s have come.
    t.equal(await readFile(file, 'utf8'), `${NEW_PET}\n${NEW_PET}\n`, 'every create appended')
  })
}

// Over TLS each serves HTTP/2 and HTTP/1.1 on one port; a fresh sandbox for each protocol, so that
// its create is the first.
for (const protocol of ['HTTPS/1.1', 'HTTP/2'] as const)
  t.test(`over ${protocol}, the bare server answers as the sandbox does`, async (t) => {
    const sandbox = await startTestSandbox(t, { TLS: 'auto' })
    const bare = await startServer(SERVERS.bare, { core: undefined, tls: { dir: await tempDir(t) } })
    t.teardown(() => bare.stop())
    t.match(bare.origin, /^https:/, 'the bare server serves HTTPS')
    const answer = (origin: string, ca: string | undefined, request: (typeof REQUESTS)[number]) =>
      protocol === 'HTTP/2' ? overHttp2(origin, ca ?? '', request) : exchange(Number(new URL(origin).port), request, ca)
    for (const request of REQUESTS) {
      const fromSandbox = await answer(sandbox.origin, sandbox.tlsCa, request)
      const answered = protocol === 'HTTP/2' ? { headers: { ':status': /^20[01]$/ } } : /^HTTP\/1\.1 20[01] /
      t.match(fromSandbox, answered, `${request.method} ${request.target}: the sandbox answers`)
      t.same(await answer(bare.origin, bare.ca, request), fromSandbox, `${request.method} ${request.target}: the same`)
    }
  })
