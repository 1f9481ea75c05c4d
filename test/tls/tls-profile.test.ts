// TLS=auto as clients outside Node see it, trusting the CA alone: strict verifiers (OpenSSL's
// x509_strict, Python 3.13's default context) accept its certificate for each name it holds, and a
// scanner (sslyze) finds Mozilla's intermediate profile: TLS 1.2 with forward-secret AEAD suites
// only, TLS 1.3, and a certificate that validates.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { tempDir } from '../support/sandbox.js'
import { runProgram, skipWithout } from '../support/system-programs.js'
import { startTlsSandbox } from '../support/tls.js'

const dir = await tempDir(t)
const ca = join(dir, 'ca.pem')
const port = String((await startTlsSandbox(t, { TLS_NAMES: 'animal-store', TLS_CA_OUT: ca })).port)

const opensslSkip = { skip: skipWithout(t, 'openssl', 'openssl') }
t.test('openssl s_client -x509_strict verifies the certificate for a name from TLS_NAMES', opensslSkip, async (t) => {
  const name = ['-servername', 'animal-store', '-verify_hostname', 'animal-store']
  const strict = ['-x509_strict', '-verify_return_error', '-CAfile', ca]
  const run = await runProgram('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, ...name, ...strict], dir)
  t.match(run.output, /Verify return code: 0 \(ok\)/)
  t.equal(run.code, 0)
})

const pythonSkip = { skip: skipWithout(t, 'python3', 'python3') }
t.test("Python's client with the strict flags 3.13 sets by default completes a request", pythonSkip, async (t) => {
  const client = [
    'import http.client, ssl, sys',
    'ctx = ssl.create_default_context(cafile=sys.argv[1])',
    'ctx.verify_flags |= ssl.VERIFY_X509_STRICT | ssl.VERIFY_X509_PARTIAL_CHAIN',
    "connection = http.client.HTTPSConnection('127.0.0.1', int(sys.argv[2]), context=ctx, timeout=60)",
    "connection.request('GET', '/healthz')",
    'print(connection.getresponse().status)',
  ].join('\n')
  const run = await runProgram('python3', ['-c', client, ca, port], dir)
  t.equal(run.output.trim(), '200', 'served')
})

const sslyzeSkip = {
  skip: skipWithout(t, 'sslyze', { source: 'pip install sslyze in a venv, the version .ci/run pins' }),
}
t.test("sslyze finds Mozilla's intermediate profile and a certificate the CA validates", sslyzeSkip, async (t) => {
  const json = join(dir, 'sslyze.json')
  // Reached by the name from TLS_NAMES at 127.0.0.1; exits non-zero when the profile is not met.
  const target = `animal-store:${port}{127.0.0.1}`
  const args = ['--mozilla_config=intermediate', '--certinfo_ca_file', ca, '--json_out', json, target]
  const run = await runProgram('sslyze', args, dir, {}, 5 * 60_000)
  t.match(run.stdout, `animal-store:${port}: OK - Compliant.`, "compliant with Mozilla's intermediate profile")
  t.equal(run.code, 0)
  const [scanned] = (JSON.parse(await readFile(json, 'utf8')) as SslyzeOutput).server_scan_results
  const [deployment] = scanned?.scan_result.certificate_info.result.certificate_deployments ?? []
  const byOurCa = deployment?.path_validation_results.find((path) => path.trust_store.name === 'Supplied CA file')
  t.ok(byOurCa?.was_validation_successful, `the CA validates the certificate: ${byOurCa?.validation_error ?? 'ok'}`)
})

/** The part of sslyze's `--json_out` read here. */
interface SslyzeOutput {
  server_scan_results: Array<{
    scan_result: {
      certificate_info: {
        result: {
          certificate_deployments: Array<{
            path_validation_results: Array<{
              trust_store: { name: string }
              was_validation_successful: boolean
              validation_error: string | null
            }>
          }>
        }
      }
    }
  }>
}
