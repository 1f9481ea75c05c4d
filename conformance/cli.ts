// npm run conformance: the suite against any deployment of the API.
//   SANDBOX_URL=http://127.0.0.1:4010/v1 SANDBOX_API_KEY=... npm run conformance
// Without SANDBOX_URL it starts an in-memory sandbox of its own and checks that.
// Exits 1 on any violation or uncovered response, 2 when it could not run.
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { startSandbox, type Sandbox } from '../src/sandbox.js'
import { runConformance } from './run.js'

async function main(): Promise<number> {
  const env = process.env
  let sandbox: Sandbox | undefined
  let baseUrl = env['SANDBOX_URL']
  let apiKey = env['SANDBOX_API_KEY']
  if (!baseUrl) {
    apiKey = randomBytes(12).toString('hex')
    const config = loadConfig([], {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_FILE: ':memory:',
      API_KEYS: apiKey,
      LOG_LEVEL: 'silent',
    })
    if (config === 'help') throw new Error('unexpected help')
    sandbox = await startSandbox(config, createLogger('silent'))
    baseUrl = sandbox.baseUrl
    console.error(`No SANDBOX_URL given: checking a sandbox started for this run at ${baseUrl}`)
  } else if (!apiKey) {
    console.error('SANDBOX_API_KEY is required with SANDBOX_URL: a key the deployment accepts')
    return 2
  }
  try {
    // BEYOND_CONTRACT=0 skips the cases where the sandbox is stricter than the interface.
    const report = await runConformance({
      baseUrl,
      apiKey: apiKey ?? '',
      beyondContract: env['BEYOND_CONTRACT'] !== '0',
    })
    console.log(report.summary)
    return report.ok ? 0 : 1
  } finally {
    await sandbox?.close()
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`conformance: ${(error as Error).message}`)
    process.exitCode = 2
  },
)
