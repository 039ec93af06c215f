// API integration tests (test/*.spec.ts): the real app over HTTP on a real database.
// globalSetup starts ONE embedded Postgres server for the run (TEST_EMBEDDED_PG_URL) unless
// TEST_DATABASE=postgres (the server at TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres);
// each test file creates and drops its own database on it (test/support/app.ts). A few files spawn the
// built server (dist/src/main.js), hence the target's dependency on `api:build`.
import type { Config } from 'jest';

const config: Config = {
  displayName: 'api-integration',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  setupFiles: ['reflect-metadata', '<rootDir>/../../jest.setup.js'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Each file boots Nest and migrates a fresh database; on a loaded 2-core machine that alone can take
  // several seconds, and some tests wait on real timers (heartbeats, deadlines) with their own limits.
  testTimeout: 120_000,
  coverageDirectory: '../../coverage/apps/api-integration',
};

export default config;
