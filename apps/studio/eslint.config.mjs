import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import base, { moduleBoundaries, serverOnlyImports } from '../../eslint.config.mjs';

export default [
  ...base,
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ...reactHooks.configs.flat['recommended-latest'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The browser tests seed the database through `pg`; they are not shipped in the bundle.
    // (Goes away when they move to their own scope:e2e project.)
    files: ['e2e/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(serverOnlyImports.filter((m) => m !== 'pg')) },
  },
];
