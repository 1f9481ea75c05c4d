import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Starts one sandbox for the run and provides its origin and tokens to the workers.
    globalSetup: './global-setup.mjs',
    // Each test file in its own worker process, four at a time.
    pool: 'forks',
    maxWorkers: 4,
  },
})
