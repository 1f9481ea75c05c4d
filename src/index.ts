// The embedding API: a sandbox started inside the test process, for suites that run without Docker.
// The control client and the Testcontainers module are their own package (modules/node), which this
// package also carries as the entries `animal-store-sandbox/client` and `animal-store-sandbox/testcontainers`.
import { IN_MEMORY, loadConfig } from './config.js'
import { startSandbox, type Sandbox } from './sandbox.js'

export { DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY, DEFAULT_PORT, IN_MEMORY, loadConfig, type Config } from './config.js'
export { startSandbox, type Sandbox } from './sandbox.js'
export type { Fault, FaultKind, NewFault } from './namespaces/faults.js'
export type { JournalEntry, JournalFilter } from './journal/request-journal.js'
export type { NewPet, Pet, PetStatus } from './store/pets.js'

/**
 * Starts a sandbox in this process with the settings the command reads from its environment
 * (`{ SEED: '7', API_KEYS: 'test-key' }`): by default on a free port of 127.0.0.1, in memory, with
 * no logs. A bad setting rejects with the message the command would print.
 *
 * @example
 * const sandbox = await startInProcess({ SEED: '7' })
 * await fetch(`${sandbox.baseUrl}/pets`, { headers: { authorization: 'Bearer sandbox-api-key' } })
 * await sandbox.close()
 */
export async function startInProcess(settings: Readonly<Record<string, string>> = {}): Promise<Sandbox> {
  const config = loadConfig([], { PORT: '0', DATA_FILE: IN_MEMORY, LOG_LEVEL: 'silent', ...settings })
  if (config === 'help') throw new Error('startInProcess: help is only asked for by a --help flag, and none is passed')
  return startSandbox(config)
}
