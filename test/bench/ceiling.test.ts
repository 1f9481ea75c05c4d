// The benchmark's ceiling (bench/bare-server.mjs) must send, for each benchmarked request, the
// bytes the sandbox sends: status line, headers in order, body. Only Date may differ. Otherwise
// "sandbox vs bare" would compare different answers.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
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

async function exchange(port: number, request: (typeof REQUESTS)[number]): Promise<string> {
  const headers: Array<[string, string]> = [
    ['Authorization', `Bearer ${API_KEY}`],
    ['Connection', 'close'],
  ]
  if (request.body) headers.push(['Content-Type', 'application/json'])
  const socket = await openSocket(port)
  const received = whenClosed(socket)
  socket.write(serialise({ ...request, headers }))
  return (await received).toString('utf8').replace(/^Date: .*\r\n/m, '')
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
