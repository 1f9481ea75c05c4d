// The global setup of a node:test suite (node:test has none of its own before Node 24): it starts
// one sandbox for the whole run, hands its origin and tokens to the test files through the
// environment, runs them with `node --test` (each file in its own process, four at a time), checks
// the run's coverage at the end (every call counted, the namespaces deleted included), and stops
// the sandbox whatever the outcome; the exit code is the run's.
//
//   npm test    (ANIMAL_STORE_IMAGE picks another image than the module's default)
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { AnimalStoreContainer } from 'animal-store-sandbox-testcontainers'

const here = fileURLToPath(new URL('.', import.meta.url))
const files = readdirSync(here).filter((name) => name.endsWith('.test.mjs'))
/** The operations this suite claims to cover: every documented response of each exercised. */
const COVERED = ['listOrders']

const sandbox = await new AnimalStoreContainer(process.env.ANIMAL_STORE_IMAGE).withInMemory().start()
try {
  const { status } = spawnSync(process.execPath, ['--test', '--test-concurrency=4', ...files], {
    cwd: here,
    stdio: 'inherit',
    env: {
      ...process.env,
      SANDBOX_ORIGIN: sandbox.getOrigin(),
      SANDBOX_ADMIN_TOKEN: sandbox.getAdminToken(),
      SANDBOX_API_KEY: sandbox.getApiKey(),
    },
  })
  process.exitCode = status ?? 1
  try {
    await sandbox.controlClient().assertAllResponsesExercised(COVERED, { all: true })
  } catch (error) {
    console.error(`end-of-suite check failed: ${error.message}`)
    process.exitCode = 1
  }
} finally {
  await sandbox.stop()
}
