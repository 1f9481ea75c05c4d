// Runs once, before the workers start: one sandbox for the whole run. What the workers need to reach
// it (serializable values only) goes through provide(); tests read it with inject('sandbox').
// Its teardown runs once every test file is done: the end-of-suite check of the run's coverage
// (every call counted, the namespaces deleted included), then the sandbox stops.
import process from 'node:process'
import { AnimalStoreContainer } from 'animal-store-sandbox-testcontainers'

/** The operations this suite claims to cover: every documented response of each exercised. */
const COVERED = ['listOrders']

export default async function setup(project) {
  const sandbox = await new AnimalStoreContainer(process.env.ANIMAL_STORE_IMAGE).withInMemory().start()
  project.provide('sandbox', {
    origin: sandbox.getOrigin(),
    adminToken: sandbox.getAdminToken(),
    apiKey: sandbox.getApiKey(),
  })
  return async () => {
    try {
      await sandbox.controlClient().assertAllResponsesExercised(COVERED, { all: true })
    } catch (error) {
      // An error thrown here is only logged by some Vitest versions: the exit code fails the run.
      console.error(`end-of-suite check failed: ${error.message}`)
      process.exitCode = 1
    } finally {
      await sandbox.stop()
    }
  }
}
