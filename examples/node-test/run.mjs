// A node:test suite against one sandbox for the whole run. node:test has no global setup before
// Node 24, so this script is one: it starts the container, hands its origin and tokens to the test
// files through the environment, runs them with `node --test` (each file in its own process, four
// at a time), and stops the container whatever the outcome.
//
//   node examples/node-test/run.mjs
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { AnimalStoreContainer } from 'animal-store-sandbox/testcontainers'

const here = fileURLToPath(new URL('.', import.meta.url))
const files = readdirSync(here).filter((name) => name.endsWith('.test.mjs'))

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
} finally {
  await sandbox.stop()
}
