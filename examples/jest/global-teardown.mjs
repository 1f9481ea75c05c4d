// Runs once, after every test file, whatever their outcome: stops the sandbox global-setup.mjs started.
export default async function globalTeardown() {
  await globalThis.animalStoreSandbox?.stop()
}
