// npm run conformance: the suite against any deployment of the API.
//   SANDBOX_URL=http://127.0.0.1:4010/v1 SANDBOX_API_KEY=... npm run conformance
//   SANDBOX_URL=https://127.0.0.1:4010/v1 SANDBOX_API_KEY=... SANDBOX_CA=ca.pem npm run conformance -- --protocol h2
// Without SANDBOX_URL it starts an in-memory sandbox of its own (TLS=auto for https and h2) and
// checks that. Exits 1 on any violation or uncovered response, 2 when it could not run.
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { startSandbox, type Sandbox } from '../src/sandbox.js'
import { PROTOCOLS, runConformance, type Protocol } from './run.js'

async function main(): Promise<number> {
  const env = process.env
  const { protocol } = parseArgs({ options: { protocol: { type: 'string' } } }).values
  if (protocol !== undefined && !isProtocol(protocol)) {
    console.error(`--protocol is one of ${Object.keys(PROTOCOLS).join(', ')}, not ${JSON.stringify(protocol)}`)
    return 2
  }
  let sandbox: Sandbox | undefined
  let baseUrl = env['SANDBOX_URL']
  let apiKey = env['SANDBOX_API_KEY']
  // SANDBOX_CA: the PEM file of the one CA to trust over TLS, e.g. the one TLS_CA_OUT wrote.
  let ca = env['SANDBOX_CA'] ? await readCa(env['SANDBOX_CA']) : undefined
  if (!baseUrl) {
    apiKey = randomBytes(12).toString('hex')
    const config = loadConfig([], {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_FILE: ':memory:',
      API_KEYS: apiKey,
      LOG_LEVEL: 'silent',
      ...(protocol === 'https' || protocol === 'h2' ? { TLS: 'auto' } : {}),
    })
    if (config === 'help') throw new Error('unexpected help')
    sandbox = await startSandbox(config, createLogger('silent'))
    baseUrl = sandbox.baseUrl
    ca = sandbox.tlsCa
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
      protocol,
      ca,
    })
    console.log(report.summary)
    return report.ok ? 0 : 1
  } finally {
    await sandbox?.close()
  }
}

const isProtocol = (name: string): name is Protocol => Object.hasOwn(PROTOCOLS, name)

async function readCa(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    throw new Error(`SANDBOX_CA: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: error,
    })
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`conformance: ${(error as Error).message}`)
    process.exitCode = 2
  },
)
