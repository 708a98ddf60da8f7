/**
 * The dependency rules of content-service, checked by `npm run deps` (part of `npm test`) with
 * dependency-cruiser. Paths are relative to the repository root.
 *
 * - no-circular: no file circle anywhere.
 * - core-is-the-floor: src/core imports nothing above it (modules, GraphQL, config, the app's
 *   wiring, the entry points, the demo data); what it needs is passed in by the caller.
 * - no-foreign-repository: a module's repository (*.repository.ts) is imported only from inside its
 *   own module; others go through its service or its narrow *.reads.ts.
 * - runtime-not-test: code that runs in production never imports test code (test/, test-support,
 *   *.test.ts, *.test-support.ts, fixtures).
 */

/** Test-only code, and the tools run by hand that borrow the tests' harness and generators (soak, hostile run, figures). */
const TEST_ONLY = [
  '^test/',
  '(^|/)test-support/',
  '\\.test\\.ts$',
  '\\.test-support\\.ts$',
  '\\.fixture\\.ts$',
  '^scripts/(soak|hostile-run|graphql-abuse-figures)\\.ts$',
];

/** What lies above core: nothing in src/core may import these. */
const ABOVE_CORE = '^src/(modules|graphql|config|demo)/|^src/(services|app|cli|server|bootstrap)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A file circle: split the files so that imports run one way.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-the-floor',
      severity: 'error',
      comment: 'src/core imports nothing above it; pass values or functions in from the caller (src/app.ts).',
      from: { path: '^src/core/' },
      to: { path: ABOVE_CORE },
    },
    {
      name: 'no-foreign-repository',
      severity: 'error',
      comment: "Only a module's own files import its repository; others use its service or its *.reads.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/.*\\.repository\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'no-repository-outside-modules',
      severity: 'error',
      comment:
        "Runtime code outside src/modules (entry points, wiring, demo) does not reach a module's repository either.",
      from: { pathNot: ['^src/modules/', ...TEST_ONLY] },
      to: { path: '^src/modules/[^/]+/.*\\.repository\\.ts$' },
    },
    {
      name: 'migrations-are-history',
      severity: 'error',
      comment:
        'Only the migrator reads migrations: a constant two places need lives with its owner (a migration keeps its own copy).',
      from: { pathNot: ['^src/core/db/migrate\\.ts$', '^src/core/db/migrations/', ...TEST_ONLY] },
      to: { path: '^src/core/db/migrations/' },
    },
    {
      name: 'runtime-not-test',
      severity: 'error',
      comment: 'Runtime code never imports test code.',
      from: { pathNot: TEST_ONLY },
      to: { path: TEST_ONLY },
    },
  ],
  options: {
    // The project's own code (`depcruise .`), test/ included once it exists; packages and node:
    // built-ins are leaves.
    includeOnly: '^(src|bin|scripts|bench|test)/',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules/', '^data/', '^coverage/', '^dist/'] },
    // ESM TypeScript with explicit `.ts` extensions (allowImportingTsExtensions), resolved as tsc does.
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
