// HTTPS and HTTP/2 with verification on: a client trusts the CA the sandbox made (or the certificate
// the user brought) and nothing else, and gets the same answers over either protocol. Strict
// verifiers and the protocol profile: tls-profile.test.ts; hostile clients and the bounds:
// test/hardening/hostile-clients-tls.test.ts.
import { spawnSync } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import type { Http2SecureServer } from 'node:http2'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import forge from 'node-forge'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { tlsFiles } from '../../src/tls/tls.js'
import { API_KEY, ROOT, spawnCli, tempDir } from '../support/sandbox.js'
import { http2Session, overHttp1, overHttp2, startTlsSandbox, type Answer, type Call } from '../support/tls.js'

const AUTH = `Bearer ${API_KEY}`
const ADMIN = { authorization: 'Bearer sandbox-admin-token' }
/** Connection headers HTTP/2 has no place for (RFC 9113 §8.2.2), and the date, which moves. */
const UNCOMPARED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', ':status'])

const compared = (answer: Answer): unknown => ({
  status: answer.status,
  body: answer.body,
  headers: Object.keys(answer.headers)
    .filter((name) => !UNCOMPARED.has(name))
    .sort(),
  contentType: answer.headers['content-type'],
})

/** The ALPN protocol the server picks when the client offers `offered`, and the names its certificate holds. */
function handshake(port: number, ca: string, offered: string[]): Promise<{ alpn: string | false; names: string }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: offered }, () => {
      resolve({ alpn: socket.alpnProtocol ?? false, names: socket.getPeerCertificate().subjectaltname ?? '' })
      socket.end()
    })
    socket.on('error', reject)
  })
}

/** The image's HEALTHCHECK with the container's settings `env`: its exit code. */
const healthcheck = (env: Record<string, string>): number | null =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/healthcheck.ts')], {
    env: { ...process.env, ...env },
  }).status

t.test('TLS=auto: trusting only the CA the sandbox made, HTTPS/1.1 and HTTP/2 answer alike', async (t) => {
  const sandbox = await startTlsSandbox(t, { TLS_NAMES: 'animal-store' })
  const { ca, origin, port } = sandbox
  t.match(origin, /^https:\/\/127\.0\.0\.1:\d+$/)

  const h2 = await handshake(port, ca, ['h2', 'http/1.1'])
  t.equal(h2.alpn, 'h2', 'ALPN: h2 to a client that offers it')
  t.equal((await handshake(port, ca, ['http/1.1'])).alpn, 'http/1.1', 'ALPN: HTTP/1.1 to one that offers only that')
  t.same(
    h2.names.split(', '),
    ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', `DNS:${hostname()}`, 'DNS:animal-store'],
    "the certificate names this machine's names and TLS_NAMES",
  )
  // A CA made as another start makes one: verification is on, and it opens nothing of this start.
  const other = (await tlsFiles({ kind: 'auto', names: [] }, undefined)).ca ?? ''
  await t.rejects(overHttp1(origin, other, { path: '/healthz' }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })

  const session = http2Session(t, origin, ca)
  const json = { authorization: AUTH, 'content-type': 'application/json' }
  const calls: Call[] = [
    { path: '/v1/pets/1', headers: { authorization: AUTH } },
    { path: '/v1/pets/999999', headers: { authorization: AUTH } },
    { path: '/v1/pets' },
    { method: 'POST', path: '/v1/pets', headers: json, body: '{"name": 7}' },
    { path: '/healthz' },
  ]
  for (const call of calls) {
    const one = await overHttp1(origin, ca, call)
    const two = await overHttp2(session, call)
    t.same(compared(two), compared(one), `${call.method ?? 'GET'} ${call.path}: the same over HTTP/2 as over HTTP/1.1`)
  }
  const missing = await overHttp2(session, calls[1] as Call)
  t.match(JSON.parse(missing.body), { code: 'not_found', status: 404 }, 'an error is the Error body')

  // The journal shows an HTTP/2 request's headers as an HTTP/1.1 one's: Host, no pseudo-headers.
  const journal = await overHttp1(origin, ca, { path: '/__admin/requests', headers: ADMIN })
  const [overOne, overTwo] = (JSON.parse(journal.body) as { entries: Array<{ headers: Record<string, string> }> })
    .entries
  const { connection, ...sentOverOne } = overOne?.headers ?? {}
  t.equal(connection, 'keep-alive')
  t.same(overTwo?.headers, sentOverOne, 'the journal shows the same headers, no pseudo-header')

  // The control API hands out the same CA, e.g. to a browser that opened the explorer past its warning.
  const served = await overHttp2(session, { path: '/__admin/tls/ca', headers: ADMIN })
  t.equal(served.status, 200)
  t.equal(served.headers['content-type'], 'application/x-pem-file')
  t.equal(served.body, ca, 'the CA the sandbox made')
})

t.test('a stop over HTTP/2 answers the request in flight, and an idle session does not hold it', async (t) => {
  const sandbox = await startTlsSandbox(t)
  const idle = http2Session(t, sandbox.origin, sandbox.ca)
  await new Promise((resolve) => idle.once('connect', resolve))
  const arrived = new Promise((resolve) => (sandbox.server as Http2SecureServer).once('request', resolve))
  const slowly = { authorization: AUTH, prefer: 'delay=1000' }
  const inFlight = overHttp2(http2Session(t, sandbox.origin, sandbox.ca), { path: '/v1/pets/1', headers: slowly })
  await arrived
  const ended = new Promise((resolve) => {
    idle.once('goaway', () => resolve('goaway'))
    idle.once('close', () => resolve('cut'))
  })
  await sandbox.close()
  t.equal((await inFlight).status, 200, 'the request in flight is answered')
  t.equal(await ended, 'goaway', 'the idle session was told to go, not cut')
})

t.test('TLS_CA_OUT: the command writes the CA there, says so, and the healthcheck trusts it', async (t) => {
  const caFile = join(await tempDir(t), 'ca.pem')
  const cli = await spawnCli(t, { TLS: 'auto', TLS_CA_OUT: caFile })
  t.match(cli.stderr, `trust: ${caFile}`)
  const origin = new URL(cli.baseUrl).origin.replace('127.0.0.1', 'localhost')
  const health = await overHttp1(origin, await readFile(caFile, 'utf8'), { path: '/healthz' })
  t.equal(health.status, 200, 'a client trusting that file alone is served')
  t.equal(healthcheck({ TLS: 'auto', TLS_CA_OUT: caFile, PORT: new URL(origin).port }), 0, 'healthy over HTTPS')
})

t.test('TLS_CA_OUT without TLS=auto (the image sets it): plain HTTP, no CA written or served', async (t) => {
  const caFile = join(await tempDir(t), 'ca.pem')
  const cli = await spawnCli(t, { TLS_CA_OUT: caFile })
  t.notMatch(cli.stderr, 'trust:', 'the banner names no CA')
  t.match(cli.baseUrl, /^http:/)
  t.notOk(existsSync(caFile), 'no CA file')
  const response = await fetch(`${new URL(cli.baseUrl).origin}/__admin/tls/ca`, { headers: ADMIN })
  t.equal(response.status, 404)
  t.match(await response.json(), { code: 'not_found', status: 404, message: /made no CA/ })
})

/** Writes `made`'s certificate and key to files in `dir`, as TLS_CERT and TLS_KEY name them. */
async function certificateFiles(dir: string, name: string, made: { cert: string; key: string }) {
  const files = { TLS_CERT: join(dir, `${name}.crt`), TLS_KEY: join(dir, `${name}.key`) }
  await writeFile(files.TLS_CERT, made.cert)
  await writeFile(files.TLS_KEY, made.key)
  return files
}

t.test(
  'TLS_CERT and TLS_KEY: the chain given is served, the healthcheck holds to it, keys are never logged',
  async (t) => {
    const dir = await tempDir(t)
    // Two certificates a CA signed for a compose service's name alone, not localhost, each followed by
    // that CA as a chain is; the sandbox serves the first.
    const ca = userCertificate(-1, 10, ['service-ca'])
    const [mine, another] = [
      userCertificate(-1, 10, ['animal-store'], ca),
      userCertificate(-1, 10, ['animal-store'], ca),
    ]
    const served = await certificateFiles(dir, 'service', { cert: mine.cert + ca.cert, key: mine.key })
    const other = await certificateFiles(dir, 'other', { cert: another.cert + ca.cert, key: another.key })
    const cli = await spawnCli(t, { ...served, API_KEYS: API_KEY, LOG_LEVEL: 'debug' })
    const origin = new URL(cli.baseUrl).origin
    t.match(origin, /^https:/)
    const call = { path: '/v1/pets/1', headers: { authorization: AUTH } }
    const pets = await overHttp1(origin, ca.cert, call, { servername: 'animal-store' })
    t.equal(pets.status, 200, 'a client trusting the CA for that name is served')
    const port = new URL(origin).port
    t.equal(healthcheck({ ...served, PORT: port }), 0, 'healthy: the server serves the certificate TLS_CERT names')
    t.equal(healthcheck({ ...other, PORT: port }), 1, 'not another one, though the same CA signed it for the same name')
    t.notMatch(cli.stderr + cli.stdout, mine.key.split('\n')[1] ?? 'no key line', 'the key is never logged')
  },
)

t.test('TLS_CLIENT_CA: only a client with a certificate that CA signed is served', async (t) => {
  const client = await tlsFiles({ kind: 'auto', names: [] }, undefined)
  const clientCa = join(await tempDir(t), 'client-ca.pem')
  await writeFile(clientCa, client.ca ?? '')
  const { origin, ca } = await startTlsSandbox(t, { TLS_CLIENT_CA: clientCa })
  await t.rejects(overHttp1(origin, ca, { path: '/healthz' }), 'no client certificate: refused')
  const served = await overHttp1(origin, ca, { path: '/healthz' }, { cert: client.cert, key: client.key })
  t.equal(served.status, 200, 'with one: served')
})

t.test('a bad TLS setting stops the start with a message that names it, never the key', async (t) => {
  const dir = await tempDir(t)
  const made = await tlsFiles({ kind: 'auto', names: [] }, undefined)
  const one = await certificateFiles(dir, 'one', made)
  const other = await certificateFiles(dir, 'other', await tlsFiles({ kind: 'auto', names: [] }, undefined))
  const expired = join(dir, 'expired.crt')
  await writeFile(expired, userCertificate(-10, -1).cert)
  const future = join(dir, 'future.crt')
  await writeFile(future, userCertificate(1, 10).cert)
  const keyLines = [made.key, await readFile(other.TLS_KEY, 'utf8')].map((key) => key.split('\n')[1] ?? 'no key line')
  // Each row once, in process: that a ConfigError stops the command with its one line is test/start/cli.test.ts's.
  const cases: Array<[Record<string, string>, RegExp]> = [
    [
      { TLS_CERT: one.TLS_CERT, TLS_KEY: other.TLS_KEY },
      /^TLS_KEY is not the private key of the certificate in TLS_CERT$/,
    ],
    [{ TLS_CERT: join(dir, 'none.crt'), TLS_KEY: one.TLS_KEY }, /^TLS_CERT: cannot read .*none\.crt \(ENOENT\)$/],
    [{ TLS_CERT: expired, TLS_KEY: one.TLS_KEY }, /^TLS_CERT: the certificate in .*expired\.crt expired on/],
    [{ TLS_CERT: future, TLS_KEY: one.TLS_KEY }, /^TLS_CERT: the certificate in .*future\.crt is valid only from/],
    [{ TLS_CERT: one.TLS_KEY, TLS_KEY: one.TLS_KEY }, /^TLS_CERT: .*one\.key holds no PEM certificate$/],
    [{ TLS_CERT: one.TLS_CERT, TLS_KEY: one.TLS_CERT }, /^TLS_KEY: .*one\.crt holds no unencrypted PEM private key$/],
    [{ TLS_CERT: one.TLS_CERT }, /^TLS_CERT needs TLS_KEY beside it$/],
    [{ TLS: 'auto', ...one }, /^TLS makes its own certificate/],
    [{ TLS: 'on' }, /^TLS must be off or auto, got "on"$/],
    [{ TLS_NAMES: 'animal-store' }, /^TLS_NAMES applies only with TLS=auto$/],
    [{ TLS: 'auto', TLS_NAMES: 'a b' }, /^TLS_NAMES: "a b" is not a host name or IP address/],
    [{ TLS: 'auto', TLS_CA_OUT: join(dir, 'none', 'ca.pem') }, /^TLS_CA_OUT: no folder .*none to write the CA in$/],
    [{ TLS_CLIENT_CA: one.TLS_CERT }, /^TLS_CLIENT_CA applies only with HTTPS on/],
  ]
  for (const [env, names] of cases) {
    const thrown = t.throws(() => loadConfig([], env), { name: 'ConfigError' }, JSON.stringify(env)) as Error
    t.match(thrown.message, names)
    for (const keyLine of keyLines) t.notMatch(thrown.message, keyLine, 'never the key')
  }
})

/**
 * A certificate and its key as a user makes them: valid `fromDays` to `toDays` from now, for
 * `names`; signed by `issuer`, or else by itself, as a CA.
 */
function userCertificate(
  fromDays: number,
  toDays: number,
  names = ['localhost'],
  issuer?: { cert: string; key: string },
): { cert: string; key: string } {
  const keyPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString()
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e)
  cert.serialNumber = `0${Math.floor(Math.random() * 1e9).toString(16)}`
  cert.validity.notBefore = new Date(Date.now() + fromDays * 86_400_000)
  cert.validity.notAfter = new Date(Date.now() + toDays * 86_400_000)
  const subject = [{ name: 'commonName', value: names[0] ?? 'localhost' }]
  cert.setSubject(subject)
  cert.setIssuer(issuer ? forge.pki.certificateFromPem(issuer.cert).subject.attributes : subject)
  const altNames = { name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) }
  cert.setExtensions(issuer ? [altNames] : [altNames, { name: 'basicConstraints', cA: true }])
  cert.sign(issuer ? forge.pki.privateKeyFromPem(issuer.key) : key, forge.md.sha256.create())
  return { cert: forge.pki.certificateToPem(cert), key: keyPem }
}
