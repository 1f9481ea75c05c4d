// HTTPS and HTTP/2 with verification on: a client trusts the CA the sandbox made (or the one the
// user brought) and nothing else, and gets the same answers over either protocol.
import { spawnSync } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { connect as http2Connect, type Http2SecureServer, type IncomingHttpHeaders } from 'node:http2'
import { request } from 'node:https'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import forge from 'node-forge'
import t from 'tap'
import { tlsFiles } from '../../src/http/tls.js'
import { API_KEY, ROOT, runCliToEnd, spawnCli, startTestSandbox, tempDir, waitFor } from '../support/sandbox.js'

interface Answer {
  readonly status: number
  readonly headers: Record<string, unknown>
  readonly body: string
}

const AUTH = `Bearer ${API_KEY}`
/** Connection headers HTTP/2 has no place for (RFC 9113 §8.2.2), and the date, which moves. */
const UNCOMPARED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', ':status'])

function overHttp1(origin: string, ca: string, method: string, path: string, headers = {}, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers, ca }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

function overHttp2(origin: string, ca: string, method: string, path: string, headers = {}, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(origin, { ca })
    session.on('error', reject)
    const stream = session.request({ ':method': method, ':path': path, ...headers }, { endStream: body === '' })
    let answered: IncomingHttpHeaders = {}
    let text = ''
    stream.setEncoding('utf8')
    stream.on('response', (h) => (answered = h))
    stream.on('data', (chunk: string) => (text += chunk))
    stream.on('end', () => {
      session.close()
      resolve({ status: Number(answered[':status']), headers: answered, body: text })
    })
    stream.on('error', reject)
    if (body !== '') stream.end(body)
  })
}

/** The ALPN protocol the server picks when the client offers `offered`. */
function negotiated(port: number, ca: string, offered: string[]): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: offered }, () => {
      resolve(socket.alpnProtocol ?? false)
      socket.end()
    })
    socket.on('error', reject)
  })
}

const compared = (answer: Answer): unknown => ({
  status: answer.status,
  body: answer.body,
  headers: Object.keys(answer.headers)
    .filter((name) => !UNCOMPARED.has(name))
    .sort(),
  contentType: answer.headers['content-type'],
})

t.test('TLS=auto: HTTPS/1.1 and HTTP/2 answer alike, trusting only the CA the sandbox made', async (t) => {
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const ca = sandbox.tlsCa ?? ''
  t.ok(ca, 'a CA to trust')
  t.match(sandbox.origin, /^https:\/\/127\.0\.0\.1:\d+$/)
  const port = Number(new URL(sandbox.origin).port)

  t.equal(await negotiated(port, ca, ['h2', 'http/1.1']), 'h2', 'ALPN: h2 to a client that offers it')
  t.equal(await negotiated(port, ca, ['http/1.1']), 'http/1.1', 'ALPN: HTTP/1.1 to one that offers only that')

  const json = { authorization: AUTH, 'content-type': 'application/json' }
  const calls: Array<[string, string, Record<string, string>, string]> = [
    ['GET', '/v1/pets/1', { authorization: AUTH }, ''],
    ['GET', '/v1/pets/999999', { authorization: AUTH }, ''],
    ['GET', '/v1/pets', {}, ''],
    ['POST', '/v1/pets', json, '{"name": 7}'],
    ['GET', '/healthz', {}, ''],
  ]
  for (const [method, path, headers, body] of calls) {
    const one = await overHttp1(sandbox.origin, ca, method, path, headers, body)
    const two = await overHttp2(sandbox.origin, ca, method, path, headers, body)
    t.same(compared(two), compared(one), `${method} ${path}: the same answer over HTTP/2 as over HTTP/1.1`)
  }
  const missing = await overHttp2(sandbox.origin, ca, 'GET', '/v1/pets/999999', { authorization: AUTH })
  t.match(JSON.parse(missing.body), { code: 'not_found', status: 404 }, 'an error is the Error body')

  // The explorer names the API as the browser reached it: over HTTPS.
  const docs = await overHttp2(sandbox.origin, ca, 'GET', '/docs', { accept: 'text/html' })
  t.equal(docs.status, 200)
  t.match(docs.body, `https://${new URL(sandbox.origin).host}/v1`)

  // The journal shows an HTTP/2 request's headers as an HTTP/1.1 one's: Host, no pseudo-headers.
  const journal = await overHttp1(sandbox.origin, ca, 'GET', '/__admin/requests', {
    authorization: 'Bearer sandbox-admin-token',
  })
  const [overOne, overTwo] = (JSON.parse(journal.body) as { entries: Array<{ headers: Record<string, string> }> })
    .entries
  const { connection, ...sentOverOne } = overOne?.headers ?? {}
  t.equal(connection, 'keep-alive')
  t.same(overTwo?.headers, sentOverOne, 'the journal shows the same headers, no pseudo-header')

  // The control API hands out the same CA, e.g. to a browser that opened the explorer past its warning.
  const served = await overHttp2(sandbox.origin, ca, 'GET', '/__admin/tls/ca', {
    authorization: 'Bearer sandbox-admin-token',
  })
  t.equal(served.status, 200)
  t.equal(served.headers['content-type'], 'application/x-pem-file')
  t.equal(served.body, ca, 'the CA the sandbox made')
})

t.test('HTTP/2 requests keep out of the reserved share, as HTTP/1.1 ones do', async (t) => {
  // Two API requests in progress at once are the API's whole share here.
  const sandbox = await startTestSandbox(t, { TLS: 'auto' }, { maxConnections: 10, reservedConnections: 8 })
  const ca = sandbox.tlsCa ?? ''
  const slowly = { authorization: AUTH, prefer: 'delay=3000' }
  const warnings: string[] = []
  const warned = (warning: Error): number => warnings.push(warning.message)
  process.on('warning', warned)
  t.teardown(() => process.off('warning', warned))
  const slow = [1, 2].map(() => overHttp2(sandbox.origin, ca, 'GET', '/v1/pets?limit=1', slowly))
  let busy: Answer | undefined
  await waitFor(
    async () => {
      busy = await overHttp2(sandbox.origin, ca, 'GET', '/v1/pets?limit=1', { authorization: AUTH })
      return busy.status === 503
    },
    { what: 'an API request past the share to be refused', timeoutMs: 10_000 },
  )
  t.match(JSON.parse(busy?.body ?? '{}'), { code: 'server_busy', status: 503 })
  t.same(warnings, [], "no warning: HTTP/1.1's Connection: close is not sent over HTTP/2")
  t.equal((await overHttp2(sandbox.origin, ca, 'GET', '/healthz')).status, 200, 'health is served')
  t.same(
    (await Promise.all(slow)).map((answer) => answer.status),
    [200, 200],
    'the requests in progress are answered',
  )
})

t.test('a stop over HTTP/2 answers the request in flight, and an idle session does not hold it', async (t) => {
  const sandbox = await startTestSandbox(t, { TLS: 'auto' })
  const ca = sandbox.tlsCa ?? ''
  const idle = http2Connect(sandbox.origin, { ca })
  t.teardown(() => idle.destroy())
  await new Promise((resolve) => idle.once('connect', resolve))
  const slowly = { authorization: AUTH, prefer: 'delay=1000' }
  const arrived = new Promise((resolve) => (sandbox.server as Http2SecureServer).once('request', resolve))
  const inFlight = overHttp2(sandbox.origin, ca, 'GET', '/v1/pets/1', slowly)
  await arrived
  const ended = new Promise((resolve) => {
    idle.once('goaway', () => resolve('goaway'))
    idle.once('close', () => resolve('cut'))
  })
  await sandbox.close()
  t.equal((await inFlight).status, 200, 'the request in flight is answered')
  t.equal(await ended, 'goaway', 'the idle session was told to go, not cut')
})

t.test('TLS_CA_OUT: the command writes the CA there and says so', async (t) => {
  const caFile = join(await tempDir(t), 'ca.pem')
  const cli = await spawnCli(t, { TLS: 'auto', TLS_CA_OUT: caFile })
  t.match(cli.stderr, `trust: ${caFile}`)
  const origin = new URL(cli.baseUrl).origin.replace('127.0.0.1', 'localhost')
  const health = await overHttp1(origin, await readFile(caFile, 'utf8'), 'GET', '/healthz')
  t.equal(health.status, 200, 'a client trusting that file alone is served')
  // The image's HEALTHCHECK, with the container's settings: it trusts the same file.
  const port = new URL(origin).port
  const check = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/healthcheck.ts')], {
    env: { ...process.env, TLS: 'auto', TLS_CA_OUT: caFile, PORT: port },
  })
  t.equal(check.status, 0, 'the healthcheck passes over HTTPS')
})

t.test('TLS_CA_OUT without TLS=auto (the image sets it): plain HTTP, no CA written or served', async (t) => {
  const caFile = join(await tempDir(t), 'ca.pem')
  const cli = await spawnCli(t, { TLS_CA_OUT: caFile })
  t.notMatch(cli.stderr, 'trust:', 'the banner names no CA')
  t.match(cli.baseUrl, /^http:/)
  t.notOk(existsSync(caFile), 'no CA file')
  const response = await fetch(`${new URL(cli.baseUrl).origin}/__admin/tls/ca`, {
    headers: { authorization: 'Bearer sandbox-admin-token' },
  })
  t.equal(response.status, 404)
  t.match(await response.json(), { code: 'not_found', status: 404, message: /made no CA/ })
})

/** A certificate and its key, signed by a CA, in files; and the CA's PEM. */
async function ownCertificate(dir: string, name: string): Promise<{ cert: string; key: string; ca: string }> {
  const made = await tlsFiles({ kind: 'auto', names: [] }, undefined)
  const files = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`), ca: join(dir, `${name}-ca.crt`) }
  await writeFile(files.cert, made.cert)
  await writeFile(files.key, made.key)
  await writeFile(files.ca, made.ca ?? '')
  return files
}

t.test('TLS_CERT and TLS_KEY: the sandbox serves the certificate it is given', async (t) => {
  const dir = await tempDir(t)
  const own = await ownCertificate(dir, 'own')
  const ca = await readFile(own.ca, 'utf8')
  const cli = await spawnCli(t, { TLS_CERT: own.cert, TLS_KEY: own.key, API_KEYS: API_KEY, LOG_LEVEL: 'debug' })
  const origin = new URL(cli.baseUrl).origin
  t.match(origin, /^https:/)
  const pets = await overHttp2(origin, ca, 'GET', '/v1/pets/1', { authorization: AUTH })
  t.equal(pets.status, 200)
  const check = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/healthcheck.ts')], {
    env: { ...process.env, TLS_CERT: own.cert, TLS_KEY: own.key, PORT: new URL(origin).port },
  })
  t.equal(check.status, 0, 'the healthcheck passes, trusting that certificate')
  const key = (await readFile(own.key, 'utf8')).split('\n')[1] ?? 'no key line'
  t.notMatch(cli.stderr + cli.stdout, key, 'the key is never logged')
})

t.test('the healthcheck passes with a certificate that does not name localhost, and only with that one', async (t) => {
  const dir = await tempDir(t)
  const write = async (name: string, made: { cert: string; key: string }): Promise<Record<string, string>> => {
    const files = { TLS_CERT: join(dir, `${name}.crt`), TLS_KEY: join(dir, `${name}.key`) }
    await writeFile(files.TLS_CERT, made.cert)
    await writeFile(files.TLS_KEY, made.key)
    return files
  }
  // Two certificates for a compose service's name alone; the sandbox serves the first.
  const served = await write('service', selfSigned(-1, 10, ['animal-store']))
  const other = await write('other', selfSigned(-1, 10, ['animal-store']))
  const cli = await spawnCli(t, served)
  const check = (files: Record<string, string>): number | null =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/healthcheck.ts')], {
      env: { ...process.env, ...files, PORT: new URL(cli.baseUrl).port },
    }).status
  t.equal(check(served), 0, 'healthy: the server serves the certificate TLS_CERT names')
  t.equal(check(other), 1, 'verification stays on: another certificate for the same name is not trusted')
})

t.test('TLS_CLIENT_CA: only a client with a certificate that CA signed is served', async (t) => {
  const dir = await tempDir(t)
  const server = await ownCertificate(dir, 'server')
  const client = await ownCertificate(dir, 'client')
  const cli = await spawnCli(t, { TLS_CERT: server.cert, TLS_KEY: server.key, TLS_CLIENT_CA: client.ca })
  const origin = new URL(cli.baseUrl).origin
  const ca = await readFile(server.ca, 'utf8')
  await t.rejects(overHttp1(origin, ca, 'GET', '/healthz'), 'no client certificate: refused')
  const served = await new Promise<number>((resolve, reject) => {
    const options = { ca, cert: '', key: '' }
    Promise.all([readFile(client.cert, 'utf8'), readFile(client.key, 'utf8')]).then(([cert, key]) => {
      Object.assign(options, { cert, key })
      request(`${origin}/healthz`, options, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
        .on('error', reject)
        .end()
    }, reject)
  })
  t.equal(served, 200, 'with one: served')
})

t.test('a bad TLS setting stops the start with one line that names it, never the key', async (t) => {
  const dir = await tempDir(t)
  const one = await ownCertificate(dir, 'one')
  const other = await ownCertificate(dir, 'other')
  const expired = join(dir, 'expired.crt')
  await writeFile(expired, selfSigned(-10, -1).cert)
  const future = join(dir, 'future.crt')
  await writeFile(future, selfSigned(1, 10).cert)
  const keyLine = (await readFile(other.key, 'utf8')).split('\n')[1] ?? 'no key line'
  const cases: Array<{ env: Record<string, string>; names: RegExp }> = [
    {
      env: { TLS_CERT: one.cert, TLS_KEY: other.key },
      names: /TLS_KEY is not the private key of the certificate in TLS_CERT/,
    },
    {
      env: { TLS_CERT: join(dir, 'none.crt'), TLS_KEY: one.key },
      names: /TLS_CERT: cannot read .*none\.crt \(ENOENT\)/,
    },
    { env: { TLS_CERT: expired, TLS_KEY: one.key }, names: /TLS_CERT: the certificate in .*expired\.crt expired on/ },
    {
      env: { TLS_CERT: future, TLS_KEY: one.key },
      names: /TLS_CERT: the certificate in .*future\.crt is valid only from/,
    },
    { env: { TLS_CERT: one.key, TLS_KEY: one.key }, names: /TLS_CERT: .*one\.key holds no PEM certificate/ },
    { env: { TLS_CERT: one.cert }, names: /TLS_CERT needs TLS_KEY beside it/ },
    { env: { TLS: 'auto', TLS_CERT: one.cert, TLS_KEY: one.key }, names: /TLS makes its own certificate/ },
    { env: { TLS: 'on' }, names: /TLS must be off or auto, got "on"/ },
    { env: { TLS_NAMES: 'animal-store' }, names: /TLS_NAMES applies only with TLS=auto/ },
  ]
  for (const c of cases) {
    const { code, stderr } = await runCliToEnd(c.env)
    t.not(code, 0, `${JSON.stringify(c.env)} → non-zero exit`)
    t.match(stderr, c.names)
    t.equal(stderr.trimEnd().split('\n').length, 1, 'one line')
    t.notMatch(stderr, keyLine, 'never the key')
  }
})

/** A self-signed certificate and its key, as a user makes one: valid `fromDays` to `toDays` from now, for `names`. */
function selfSigned(fromDays: number, toDays: number, names = ['localhost']): { cert: string; key: string } {
  const keyPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString()
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e)
  cert.serialNumber = '01'
  cert.validity.notBefore = new Date(Date.now() + fromDays * 86_400_000)
  cert.validity.notAfter = new Date(Date.now() + toDays * 86_400_000)
  cert.setSubject([{ name: 'commonName', value: names[0] ?? 'localhost' }])
  cert.setIssuer([{ name: 'commonName', value: names[0] ?? 'localhost' }])
  cert.setExtensions([{ name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) }])
  cert.sign(key, forge.md.sha256.create())
  return { cert: forge.pki.certificateToPem(cert), key: keyPem }
}
