// npm run conformance: the sandbox against its own contract, every case of conformance/cases.ts
// through Prism; a summary of what was checked, the coverage guard (every documented response
// exercised, `default` standing for undeclared statuses), and an exit code a CI job can act on.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { CASES } from '../../conformance/cases.js'
import { runConformanceCli } from '../support/conformance-cli.js'
import { API_KEY, startTestSandbox } from '../support/sandbox.js'

t.test('against a running sandbox: every case passes, exit 0 and a summary of operations and statuses', async (t) => {
  const { baseUrl } = await startTestSandbox(t)
  const run = await runConformanceCli({ SANDBOX_URL: baseUrl, SANDBOX_API_KEY: API_KEY })
  t.equal(run.code, 0, 'exit 0')
  if (run.code !== 0) t.comment(run.stdout + run.stderr)
  t.match(run.stdout, `Conformance of ${baseUrl}`)
  t.match(run.stdout, /listPets +200 ×\d+, 401 ×3, 400 \(undocumented\) ×2\n/, 'listPets has no default')
  t.match(run.stdout, /createPet +201 ×5, 400 ×\d+/)
  t.match(run.stdout, /getPet +200 ×1, 401 ×1, 404 ×1/)
  t.match(run.stdout, /listOrders +401 \(as default\) ×1, 501 \(as default\) ×1/)
  t.match(run.stdout, /Coverage: (\d+) of \1 documented responses exercised\n/)
  t.notMatch(run.stdout, /^FAIL/m, 'no case fails: no Prism violation, no wrong status or body')
  t.match(run.stdout, `${CASES.length} cases: ${CASES.length} passed, 0 failed`, 'every case ran')
  t.notMatch(run.stdout + run.stderr, API_KEY, 'the key is never printed')
})

t.test('against a server that breaks the contract: exit 1, with the violations printed', async (t) => {
  // Answers everything with 200 and an empty object.
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const run = await runConformanceCli({
    SANDBOX_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    SANDBOX_API_KEY: 'k',
  })
  t.equal(run.code, 1, 'exit 1')
  t.match(run.stdout, /FAIL +listPets 200 .*\n +Prism: Error at response\.body: Response body must be array/)
  t.match(run.stdout, /never exercised: .*createPet 201/, 'a documented response no case reached fails the run')
})

t.test('SANDBOX_URL without SANDBOX_API_KEY: exit 2 and a message', async (t) => {
  const run = await runConformanceCli({ SANDBOX_URL: 'http://127.0.0.1:9/v1', SANDBOX_API_KEY: '' })
  t.equal(run.code, 2)
  t.match(run.stderr, /SANDBOX_API_KEY is required/)
})
