// The embedding API: start a sandbox inside a test process, or build on its parts.
export { createApp } from './app.js'
export { DEFAULT_API_KEY, DEFAULT_PORT, loadConfig, type Config } from './config.js'
export { ERRORS, HttpError } from './errors.js'
export { generateAnimals } from './seed.js'
export { loadSpec } from './spec.js'
export { startSandbox, type Sandbox } from './server.js'
export type { Pet, NewPet, PetStatus } from './store.js'
