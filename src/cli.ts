#!/usr/bin/env node
// The command: settings → sandbox → banner; SIGTERM and SIGINT stop it cleanly, and a rejection no
// code handled is logged and counted, never fatal (unhandled-rejections.ts).
import { ConfigError, helpText, loadConfig, type Config } from './config.js'
import { DataFileError } from './store/errors.js'
import { FixturesError } from './store/initial-data.js'
import { tuneHeapForLoad } from './heap-tuning.js'
import { createLogger } from './logger.js'
import { startSandbox } from './sandbox.js'
import { surviveUnhandledRejections } from './unhandled-rejections.js'

async function main(): Promise<void> {
  if (process.argv[2] === 'mcp') return mcp(process.argv.slice(3))
  if (process.argv[2] === 'pact') return pact(process.argv.slice(3))
  if (process.argv[2] === 'replay' || process.argv[2] === 'shrink') {
    // A bundle's replay and shrink (src/repro/); a replay with --against is a recorded session's (src/fidelity/).
    const { reproCommand } = await import('./repro/command.js')
    process.exitCode = await reproCommand(process.argv.slice(2))
    if (process.exitCode !== undefined) return
    const { runReplay } = await import('./fidelity/replay.js')
    process.exitCode = await runReplay(process.argv.slice(3), process.env)
    return
  }
  let config: Config | 'help'
  try {
    config = loadConfig(process.argv.slice(2), process.env)
  } catch (error) {
    return fail(error)
  }
  if (config === 'help') {
    process.stdout.write(helpText())
    return
  }

  const logger = createLogger(config.logLevel)
  surviveUnhandledRejections(logger)
  let sandbox
  try {
    sandbox = await startSandbox(config, logger)
  } catch (error) {
    return fail(error, config)
  }
  tuneHeapForLoad()

  // A configured key is a secret: only the documented default is ever printed.
  const key = config.defaultApiKey ? config.apiKeys[0] : '<your API key>'
  // On every interface (as in a container), the address inside is not what a user reaches: a
  // published port may differ. The lines then say localhost and where the port comes from.
  const port = new URL(sandbox.origin).port
  const everywhere = ['0.0.0.0', '::', '[::]'].includes(config.host)
  const origin = everywhere ? `${new URL(sandbox.origin).protocol}//localhost:${port}` : sandbox.origin
  process.stderr.write(
    [
      everywhere
        ? `Animal Store sandbox listening on port ${port} of every interface (from outside a container, use the host port published for it)`
        : `Animal Store sandbox listening on ${sandbox.origin}`,
      `  API:  ${sandbox.baseUrl.replace(sandbox.origin, origin)}`,
      `  data: ${sandbox.dataDescription}${config.dataFile ? `, saved to ${config.dataFile}` : ', in memory only'}`,
      `  try:  curl -H "Authorization: Bearer ${key}" ${sandbox.baseUrl.replace(sandbox.origin, origin)}/pets`,
      `  docs: ${origin}/docs (explore the API in a browser)`,
      config.adminToken === undefined
        ? `  test control: off${config.controlOffReason === undefined ? '' : ` (${config.controlOffReason}: set one to turn it on)`}`
        : `  test control: ${origin}/__admin (Bearer ${config.defaultAdminToken ? config.adminToken : '<your admin token>'})`,
      ...(config.adminToken === undefined ? [] : [`  agents: ${origin}/mcp (MCP, opened by the same token)`]),
      ...(sandbox.tlsCa === undefined || config.tlsCaOut === undefined
        ? []
        : [`  trust: ${config.tlsCaOut} (the CA of this start's certificate)`]),
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

/** `animal-store-sandbox mcp`: an MCP server on stdio for a sandbox running elsewhere (src/mcp/). */
async function mcp(argv: string[]): Promise<void> {
  const { MCP_HELP, readMcpTarget, serveStdio } = await import('./mcp/stdio.js')
  let target
  try {
    target = readMcpTarget(argv, process.env)
  } catch (error) {
    return fail(error)
  }
  if (target === 'help') process.stdout.write(MCP_HELP)
  else await serveStdio(target)
}

/** `animal-store-sandbox pact verify`: a Pact verified against a running sandbox (src/pact/). */
async function pact(argv: string[]): Promise<void> {
  const { pactCommand } = await import('./pact/command.js')
  process.exitCode = await pactCommand(argv, process.env)
}

/** One line that names the setting or the file at fault; the stack only at the debug log level. */
function fail(error: unknown, config?: Config): void {
  process.stderr.write(`animal-store-sandbox: ${reasonOf(error, config)}\n`)
  if (config !== undefined && ['debug', 'trace'].includes(config.logLevel) && error instanceof Error && error.stack)
    process.stderr.write(`${error.stack}\n`)
  process.exitCode = 2
}

function reasonOf(error: unknown, config: Config | undefined): string {
  if (error instanceof ConfigError || error instanceof DataFileError || error instanceof FixturesError)
    return error.message
  const { code, message } = error as NodeJS.ErrnoException
  if (config !== undefined && (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')) {
    const why =
      code === 'EADDRINUSE'
        ? 'is already in use'
        : code === 'EACCES'
          ? 'needs privileges this process lacks'
          : 'is not an address of this machine'
    return `PORT ${config.port} on HOST ${config.host} ${why}: set PORT to a free port (0 for any)${code === 'EADDRNOTAVAIL' ? ' or HOST to an address of this machine' : ''}`
  }
  return `could not start: ${message ?? String(error)} (LOG_LEVEL=debug shows where)`
}

await main()
