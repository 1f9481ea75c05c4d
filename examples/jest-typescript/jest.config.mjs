export default {
  // Starts one sandbox for the run and hands its origin and tokens to the workers (process.env).
  globalSetup: './global-setup.mjs',
  globalTeardown: './global-teardown.mjs',
  // TypeScript test files compiled by ts-jest to native ES modules (the sandbox's module is ESM-only);
  // `./sandbox.js` in an import is the file sandbox.ts, as TypeScript writes it.
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  maxWorkers: 4,
}
