// API unit tests: the *.spec.ts beside the code in src/ (no database, no HTTP server of the app).
// The HTTP suite in test/ is jest.integration.config.ts (`nx run api:test-integration`).
import type { Config } from 'jest';

const config: Config = {
  displayName: 'api',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  setupFiles: ['reflect-metadata', '<rootDir>/../../jest.setup.js'],
  coverageDirectory: '../../coverage/apps/api',
};

export default config;
