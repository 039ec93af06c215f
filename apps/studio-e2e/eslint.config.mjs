import base, { moduleBoundaries, testRules } from '../../eslint.config.mjs';

export default [
  ...base,
  {
    // the whole project is tests; it runs the repo's fake model server and MCP tool server from the api's test support
    files: ['**/*.ts'],
    rules: {
      ...testRules,
      '@nx/enforce-module-boundaries': moduleBoundaries(undefined, [
        '../../../api/test/support/fake-llm',
        '../../api/test/support/mcp-tool-server',
      ]),
    },
  },
];
