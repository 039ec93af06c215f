// Shared jest settings for every project (each project's jest.config.ts spreads this).
// TypeScript is transpiled per file by @swc/jest — no tsc step before tests, no type checking at test
// time (the `typecheck` targets do that). NestJS dependency injection and TypeORM entities read the
// design-time types that tsc emits as `design:*` metadata, so swc must emit them too
// (legacyDecorator + decoratorMetadata, as `experimentalDecorators`/`emitDecoratorMetadata` in
// tsconfig.base.json).
const { mkdirSync } = require('node:fs');
const { join } = require('node:path');
const nxPreset = require('@nx/jest/preset').default;

const swc = [
  '@swc/jest',
  {
    swcrc: false,
    sourceMaps: 'inline',
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', tsx: true, decorators: true },
      // tsconfig.base.json's useDefineForClassFields: false, which Nest and TypeORM classes rely on.
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];

// The `test` targets write jest's --json results here (nx.json targetDefaults) for scripts/test.mjs;
// jest does not create the directory itself.
mkdirSync(join(__dirname, 'tmp/jest'), { recursive: true });

module.exports = {
  ...nxPreset,
  testEnvironment: 'node',
  setupFiles: [join(__dirname, 'jest.setup.js')],
  transform: { '^.+\\.[cm]?[tj]sx?$': swc },
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  // The shared graph library is tested and used from its TypeScript source, never from a stale dist/.
  moduleNameMapper: {
    '^@service/workflow-graph$': join(__dirname, 'libs/workflow-graph/src/index.ts'),
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/dist-support/'],
  coveragePathIgnorePatterns: ['/node_modules/', '/test/support/'],
};
