// Runs once, before the workers start: one sandbox for the whole run. What the workers need to reach
// it (serializable values only) goes through provide(); tests read it with inject('sandbox').
import process from 'node:process'
import { AnimalStoreContainer } from 'animal-store-sandbox-testcontainers'

export default async function setup(project) {
  const sandbox = await new AnimalStoreContainer(process.env.ANIMAL_STORE_IMAGE).withInMemory().start()
  project.provide('sandbox', {
    origin: sandbox.getOrigin(),
    adminToken: sandbox.getAdminToken(),
    apiKey: sandbox.getApiKey(),
  })
  return () => sandbox.stop()
}
