import base, { testFiles } from '../../eslint.config.mjs';

export default [
  ...base,
  {
    // The runtime is a library (docs/ARCHITECTURE.md): no HTTP layer and no database code, so a worker
    // process can run it. Its tests may use whatever they need.
    files: ['src/modules/runtime/**/*.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'express', message: 'The runtime has no HTTP layer.' },
            { name: 'typeorm', message: 'The runtime has no database code; take a port instead.' },
            { name: '@nestjs/typeorm', message: 'The runtime has no database code; take a port instead.' },
            { name: 'pg', message: 'The runtime has no database code; take a port instead.' },
          ],
          patterns: [
            {
              group: ['**/chat/**', '**/chat'],
              message: 'The runtime must not depend on its HTTP face (modules/chat).',
            },
            {
              group: ['**/*.controller', '**/*.entity'],
              message: 'The runtime imports no controllers and no entities.',
            },
          ],
        },
      ],
    },
  },
];
