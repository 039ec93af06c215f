import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import base from '../../eslint.config.mjs';

export default [
  ...base,
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ...reactHooks.configs.flat['recommended-latest'],
    languageOptions: { globals: { ...globals.browser } },
  },
];
