import type { Config } from 'jest';

const config: Config = {
  displayName: 'workflow-graph',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  coverageDirectory: '../../coverage/libs/workflow-graph',
};

export default config;
