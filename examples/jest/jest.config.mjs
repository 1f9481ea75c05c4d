export default {
  // Starts one sandbox for the run and hands its origin and tokens to the workers (process.env).
  globalSetup: './global-setup.mjs',
  globalTeardown: './global-teardown.mjs',
  // Native ES modules (the sandbox's module is ESM-only): no Babel transform.
  transform: {},
  maxWorkers: 4,
}
