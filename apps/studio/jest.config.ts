// The studio's pure-logic specs (graph draft, SSE state, transcript, diff): no DOM, no React, so they
// run in jest's node environment.
import type { Config } from 'jest';

const config: Config = {
  displayName: 'studio',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  coverageDirectory: '../../coverage/apps/studio',
};

export default config;
