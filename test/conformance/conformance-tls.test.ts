// The conformance suite over HTTPS/1.1 and HTTP/2 against a TLS=auto sandbox, trusting only the CA
// that sandbox made (SANDBOX_CA, the file TLS_CA_OUT wrote): every case passes, and every request
// the sandbox answered came over the protocol asked for. A CA it did not make, or HTTP/2 asked of a
// server without it, stops the run at the handshake.
import { writeFile } from 'node:fs/promises'
import { constants, createSecureServer, type Http2SecureServer } from 'node:http2'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { CASES } from '../../conformance/cases.js'
import { PROTOCOLS, runConformance } from '../../conformance/run.js'
import { tlsFiles } from '../../src/tls/tls.js'
import { runConformanceCli } from '../support/conformance-cli.js'
import { API_KEY, tempDir } from '../support/sandbox.js'
import { startTlsSandbox } from '../support/tls.js'

/** The HTTP version the sandbox sees for each protocol the suite speaks over TLS. */
const HTTP_VERSION = { https: '1.1', h2: '2.0' } as const

for (const protocol of ['https', 'h2'] as const) {
  t.test(`--protocol ${protocol}: every case passes over ${PROTOCOLS[protocol]}`, async (t) => {
    const caFile = join(await tempDir(t), 'ca.pem')
    const sandbox = await startTlsSandbox(t, { TLS_CA_OUT: caFile })
    const versions = new Set<string>()
    ;(sandbox.server as Http2SecureServer).on('request', (req) => versions.add(req.httpVersion))
    const run = await runConformanceCli(
      { SANDBOX_URL: sandbox.baseUrl, SANDBOX_API_KEY: API_KEY, SANDBOX_CA: caFile },
      ['--protocol', protocol],
    )
    t.equal(run.code, 0, 'exit 0')
    if (run.code !== 0) t.comment(run.stdout + run.stderr)
    t.match(run.stdout, `Conformance of ${sandbox.baseUrl} over ${PROTOCOLS[protocol]} against spec/openapi.yaml`)
    t.match(run.stdout, /Coverage: (\d+) of \1 documented responses exercised\n/)
    t.match(run.stdout, `${CASES.length} cases: ${CASES.length} passed, 0 failed`, 'every case ran and passed')
    t.same(
      [...versions],
      [HTTP_VERSION[protocol]],
      `the sandbox answered every request over HTTP/${HTTP_VERSION[protocol]}`,
    )
  })
}

t.test('a CA the sandbox did not make: the run stops at the TLS handshake, exit 2', async (t) => {
  const dir = await tempDir(t)
  const sandbox = await startTlsSandbox(t)
  // A CA made like the sandbox's, by another start: trusting it opens nothing of this one.
  const otherCa = join(dir, 'other-ca.pem')
  await writeFile(otherCa, (await tlsFiles({ kind: 'auto', names: [] }, undefined)).ca ?? '')
  for (const protocol of ['https', 'h2']) {
    const run = await runConformanceCli(
      { SANDBOX_URL: sandbox.baseUrl, SANDBOX_API_KEY: API_KEY, SANDBOX_CA: otherCa },
      ['--protocol', protocol],
    )
    t.equal(run.code, 2, `${protocol}: exit 2`)
    t.match(run.stderr, /^conformance: the TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: \S/m, protocol)
    t.equal(run.stdout, '', `${protocol}: no case ran`)
  }
})

t.test('HTTP/2 asked of a server that speaks only HTTPS/1.1: exit 2, and why', async (t) => {
  const dir = await tempDir(t)
  const { cert, key, ca } = await tlsFiles({ kind: 'auto', names: [] }, undefined)
  const caFile = join(dir, 'ca.pem')
  await writeFile(caFile, ca ?? '')
  const server = createServer({ cert, key }, (_req, res) => res.end())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const run = await runConformanceCli(
    {
      SANDBOX_URL: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      SANDBOX_API_KEY: API_KEY,
      SANDBOX_CA: caFile,
    },
    ['--protocol', 'h2'],
  )
  t.equal(run.code, 2)
  t.match(run.stderr, /conformance: https:\/\/127\.0\.0\.1:\d+ does not speak HTTP\/2/)
})

t.test('a deployment that drops a request: the case fails with the reason, over either protocol', async (t) => {
  const { cert, key, ca } = await tlsFiles({ kind: 'auto', names: [] }, undefined)
  // Resets each HTTP/2 stream, and closes each HTTP/1.1 connection, without an answer.
  const server = createSecureServer({ cert, key, allowHTTP1: true }, (req) =>
    req.stream === undefined ? req.socket.destroy() : req.stream.close(constants.NGHTTP2_INTERNAL_ERROR),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  const listPets = CASES.find((c) => c.operationId === 'listPets' && c.status === 200)
  const direct = CASES.find((c) => c.route === 'direct')
  if (!listPets || !direct) throw new Error('no listPets 200 case, or no direct one')
  for (const protocol of ['https', 'h2'] as const) {
    const report = await runConformance({
      baseUrl: `${origin}/v1`,
      apiKey: API_KEY,
      protocol,
      ca,
      cases: [listPets, direct],
    })
    t.equal(report.ok, false, `${protocol}: the run fails`)
    for (const result of report.results)
      t.match(
        result.problems.join('\n'),
        `got 502: the relay could not reach ${origin}: `,
        `${protocol}: the ${result.via} case names why`,
      )
  }
})

t.test('a protocol the URL does not allow, or none known: exit 2 with one line', async (t) => {
  const env = { SANDBOX_URL: 'http://127.0.0.1:9/v1', SANDBOX_API_KEY: API_KEY }
  const overTls = await runConformanceCli(env, ['--protocol', 'h2'])
  t.equal(overTls.code, 2)
  t.equal(overTls.stderr, 'conformance: HTTP/2 needs an https:// URL, not http://127.0.0.1:9/v1\n')
  const unknown = await runConformanceCli(env, ['--protocol', 'h3'])
  t.equal(unknown.code, 2)
  t.equal(unknown.stderr, '--protocol is one of http1, https, h2, not "h3"\n')
})
