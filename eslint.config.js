import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * DECISIONS §13: `sql.raw` and `sql.lit` write their argument into the statement as text, so it may only
 * be text fixed in code: a literal, a choice between literals, or a keyword from a closed set
 * (`directionSql`, `afterOperator` of core/db/sort-direction.ts). Anything else needs a reviewed
 * `eslint-disable-next-line no-restricted-syntax -- <why it is closed>` (docs/SECURITY.md lists each).
 */
const CLOSED_TEXT = [
  'Literal',
  'ConditionalExpression[consequent.type="Literal"][alternate.type="Literal"]',
  'CallExpression[callee.name=/^(directionSql|afterOperator)$/]',
];
const NAMED_EXPORTS = { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' };
const SQL_TEXT = [
  {
    selector: `CallExpression[callee.object.name="sql"][callee.property.name=/^(raw|lit)$/]:not(:has(> :matches(${CLOSED_TEXT.join(', ')}):first-child))`,
    message: 'sql.raw/sql.lit take only text fixed in code (DECISIONS §13); bind values, look keywords up.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/', 'admin/build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', NAMED_EXPORTS],
    },
  },
  {
    // The admin console runs in a browser (admin/README.md).
    files: ['admin/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The code that serves requests (migrations and tests write only their own text).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/core/db/migrations/**', 'src/**/*.migration.ts', 'src/**/*.migrations.ts'],
    rules: { 'no-restricted-syntax': ['error', NAMED_EXPORTS, ...SQL_TEXT] },
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
