// Root ESLint flat config. Every project's eslint.config.mjs spreads this array and appends its own
// blocks (see apps/studio/eslint.config.mjs); the file globs below are written relative to any project
// so a new project (e.g. an e2e one) needs nothing more than `export default [...base]`.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Files linted with the relaxed test rule set (still type-checked). */
export const testFiles = [
  '**/*.spec.ts',
  '**/*.spec.tsx',
  '**/*.test.ts',
  '**/test/**/*.ts',
  '**/e2e/**/*.ts',
  '**/*-e2e/**/*.ts',
  '**/test-support.ts',
  '**/test-support/**/*.ts',
];
/** Plain JavaScript (scripts, configs): no tsconfig covers them, so no type-aware rules. */
export const jsFiles = ['**/*.js', '**/*.mjs', '**/*.cjs'];

/**
 * Import boundaries on Nx project tags (docs/ARCHITECTURE.md): the libs are shared by both apps and import
 * only each other, never Nest, React or a database driver; the apps import the libs; nothing imports an app.
 */
export const serverOnlyImports = ['@nestjs/*', 'typeorm', 'pg', 'express'];
export const browserOnlyImports = ['react', 'react-dom', 'react/*', 'react-dom/*', '@xyflow/*'];
export const moduleBoundaries = (studioBanned = serverOnlyImports, allow = []) => [
  'error',
  {
    enforceBuildableLibDependency: true,
    allow,
    depConstraints: [
      {
        sourceTag: 'scope:shared',
        onlyDependOnLibsWithTags: ['scope:shared'],
        bannedExternalImports: [...serverOnlyImports, ...browserOnlyImports],
      },
      { sourceTag: 'scope:api', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: browserOnlyImports },
      { sourceTag: 'scope:studio', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: studioBanned },
      { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
    ],
  },
];

/** The relaxed rule set of test files (a whole e2e project uses it too). */
export const testRules = {
  // Tests poke at JSON bodies and fakes typed `any`; asserting on them is the point.
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
  // expect(obj.method).toHaveBeenCalled() and handing methods to assert helpers are normal in tests.
  '@typescript-eslint/unbound-method': 'off',
  // String(x) in an assertion message is for the reader; "[object Object]" there is harmless.
  '@typescript-eslint/no-base-to-string': 'off',
  // Test helpers type parsed response bodies as `any` on purpose (see the no-unsafe-* lines above).
  '@typescript-eslint/no-explicit-any': 'off',
};

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/dist-e2e/**',
      '**/dist-support/**',
      '**/.spec-out/**',
      '**/coverage/**',
      '**/test-results/**',
      '**/playwright-report/**',
      '**/.nx/**',
      '**/node_modules/**',
      // generated from the OpenAPI document by openapi-typescript (npm run openapi)
      '**/contracts/src/api.d.ts',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  ...nx.configs['flat/base'],
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: {
        // each file is checked with the nearest tsconfig.json; tool configs at a project root (jest, playwright)
        // that no tsconfig includes get a default program instead of a parse error
        projectService: { allowDefaultProject: ['*.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx', ...jsFiles],
    // a project's eslint config imports this file by relative path, which is how flat configs compose
    ignores: ['**/eslint.config.mjs'],
    rules: {
      '@nx/enforce-module-boundaries': moduleBoundaries(),
      // async methods implement Promise-returning ports and framework hooks (TurnPorts, the workspace, Nest's
      // lifecycle and guard overrides) without always awaiting; the rule would force Promise.resolve wrappers.
      '@typescript-eslint/require-await': 'off',
      // as only-throw-error does by default: forwarding a caught rejection (typed unknown) as it is is fine
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `_`-prefixed names are the codebase's marker for a parameter kept for its position or a rest sibling.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: testFiles,
    rules: testRules,
  },
  {
    files: jsFiles,
    extends: [tseslint.configs.disableTypeChecked],
  },
  prettier,
);
