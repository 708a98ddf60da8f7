import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // Only the database layer talks to drivers.
    files: ['src/**/*.ts', 'test/**/*.ts'],
    ignores: ['src/core/db/**', 'test/support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['pg', 'node:sqlite'].map((name) => ({ name, message: 'Drivers are used only in src/core/db.' })) },
      ],
    },
  },
  {
    // Imports run one way: routes and resolvers call services, never repositories.
    files: ['src/modules/**/*.routes.ts', 'src/modules/**/*.resolvers.ts', 'src/graphql/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/*.repository.ts'], message: 'Call the service; only services use repositories.' }] },
      ],
    },
  },
  { files: ['eslint.config.js'], rules: { 'no-restricted-syntax': 'off' } },
);
