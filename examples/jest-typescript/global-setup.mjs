// Runs once, in Jest's main process, before the workers start: one sandbox for the whole run. The
// workers are started after it and inherit its environment: that is how they get the origin and
// tokens. The container itself goes to global-teardown.mjs through globalThis, which only the
// teardown shares with this file.
import process from 'node:process'
import { AnimalStoreContainer } from 'animal-store-sandbox-testcontainers'

export default async function globalSetup() {
  const sandbox = await new AnimalStoreContainer(process.env.ANIMAL_STORE_IMAGE).withInMemory().start()
  globalThis.animalStoreSandbox = sandbox
  process.env.SANDBOX_ORIGIN = sandbox.getOrigin()
  process.env.SANDBOX_ADMIN_TOKEN = sandbox.getAdminToken()
  process.env.SANDBOX_API_KEY = sandbox.getApiKey()
}
