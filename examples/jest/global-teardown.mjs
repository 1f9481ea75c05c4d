// Runs once, after every test file, whatever their outcome: the end-of-suite check of the run's
// coverage (every call counted, the namespaces deleted included), then it stops the sandbox
// global-setup.mjs started. An error thrown here fails Jest's run (exit code 1).

/** The operations this suite claims to cover: every documented response of each exercised. */
const COVERED = ['listOrders']

export default async function globalTeardown() {
  const sandbox = globalThis.animalStoreSandbox
  try {
    await sandbox?.controlClient().assertAllResponsesExercised(COVERED, { all: true })
  } finally {
    await sandbox?.stop()
  }
}
