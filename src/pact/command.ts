// `animal-store-sandbox pact verify <file> --url <sandbox>`.
import { parseArgs } from 'node:util'
import { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY } from '../pipeline/auth.js'
import { PactVerifyError, verifyPact } from './verify.js'

export const PACT_HELP = `Usage: animal-store-sandbox pact verify <pact.json> --url <sandbox> [--admin-token <token>] [--api-key <key>]

Verifies a Pact against a running sandbox with the official Pact verifier
(npm install --save-dev @pact-foundation/pact-core). Each provider state is restored through the
control API in a namespace of the verification's own; the report is the verifier's. Exits 0 when
every interaction passed, 1 when one failed, 2 when the verification could not run.

  --url <origin>          the sandbox, e.g. http://127.0.0.1:4010
  --admin-token <token>   the control API's token (ADMIN_TOKEN; default sandbox-admin-token)
  --api-key <key>         the key the verifier sends where the Pact has a redacted one
                          (the first of API_KEYS; default sandbox-api-key)
`

/** Runs `pact <args>`; resolves with the exit code. */
export async function pactCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        'admin-token': { type: 'string' },
        'api-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    return usage((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    process.stdout.write(PACT_HELP)
    return 0
  }
  const [verb, file, ...rest] = positionals
  if (verb !== 'verify') return usage(`unknown pact command ${JSON.stringify(verb ?? '')}: the command is pact verify`)
  if (file === undefined || rest.length > 0) return usage('pact verify takes one Pact file')
  if (values.url === undefined) return usage('pact verify needs --url, the sandbox to verify against')
  try {
    new URL(values.url)
  } catch {
    return usage(`--url ${JSON.stringify(values.url)} is not a URL, e.g. http://127.0.0.1:4010`)
  }
  try {
    const passed = await verifyPact({
      file,
      url: values.url,
      adminToken: values['admin-token'] ?? (env['ADMIN_TOKEN'] || DEFAULT_ADMIN_TOKEN),
      apiKey: values['api-key'] ?? (env['API_KEYS']?.split(',')[0]?.trim() || DEFAULT_API_KEY),
    })
    return passed ? 0 : 1
  } catch (error) {
    process.stderr.write(`animal-store-sandbox: ${error instanceof PactVerifyError ? error.message : String(error)}\n`)
    return 2
  }
}

function usage(problem: string): number {
  process.stderr.write(`animal-store-sandbox: ${problem}\n\n${PACT_HELP}`)
  return 2
}
