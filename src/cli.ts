#!/usr/bin/env node
// The command: settings → sandbox → banner; SIGTERM and SIGINT stop it cleanly.
import { ConfigError, HELP, loadConfig, type Config } from './config.js'
import { DataFileError } from './store/durable-io.js'
import { FixturesError } from './store/initial-data.js'
import { createLogger } from './logger.js'
import { startSandbox } from './sandbox.js'

async function main(): Promise<void> {
  let config: Config | 'help'
  try {
    config = loadConfig(process.argv.slice(2), process.env)
  } catch (error) {
    return fail(error)
  }
  if (config === 'help') {
    process.stdout.write(HELP)
    return
  }

  const logger = createLogger(config.logLevel)
  let sandbox
  try {
    sandbox = await startSandbox(config, logger)
  } catch (error) {
    return fail(error)
  }

  // A configured key is a secret: only the documented default is ever printed.
  const key = config.defaultApiKey ? config.apiKeys[0] : '<your API key>'
  process.stderr.write(
    [
      `Animal Store sandbox listening on ${sandbox.origin}`,
      `  API:  ${sandbox.baseUrl}`,
      `  data: ${sandbox.dataDescription}${config.dataFile ? `, saved to ${config.dataFile}` : ', in memory only'}`,
      `  try:  curl -H "Authorization: Bearer ${key}" ${sandbox.baseUrl}/pets`,
      `  docs: ${sandbox.origin}/docs (explore the API in a browser)`,
      config.adminToken === undefined
        ? '  test control: off'
        : `  test control: ${sandbox.origin}/__admin (Bearer ${config.defaultAdminToken ? config.adminToken : '<your admin token>'})`,
      '',
    ].join('\n'),
  )

  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'stopping')
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'could not stop cleanly')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

function fail(error: unknown): void {
  const known = error instanceof ConfigError || error instanceof DataFileError || error instanceof FixturesError
  const message = known ? (error as Error).message : `could not start: ${(error as Error)?.stack ?? String(error)}`
  process.stderr.write(`animal-store-sandbox: ${message}\n`)
  if (!known && (error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') process.stderr.write('  (set PORT to a free port, or 0 for any)\n')
  process.exitCode = 2
}

await main()
