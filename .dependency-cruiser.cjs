/**
 * The dependency rules of content-service, checked by `npm run deps` (part of `npm test`) with
 * dependency-cruiser. Paths are relative to the repository root.
 *
 * - no-circular: no file circle anywhere.
 * - core-is-the-floor: src/core imports nothing above it (modules, GraphQL, config, the app's
 *   wiring, the entry points, the demo data); what it needs is passed in by the caller.
 * - no-foreign-repository: a module's repository (*.repository.ts) and compiled statements
 *   (*.statements.ts) are imported only from inside its own module; others go through its service or
 *   its narrow *.reads.ts.
 * - compiled-statements-confined: the compiled-statement path (statement-cache.ts, fast-read.ts) is
 *   used only by src/core and by files named for it (*.statements.ts), so a repository has one way to
 *   build SQL: Kysely, or core's readers (by-id reads, lists, counter sums).
 * - no-foreign-presentation: a module does not import another module's presenter, schemas or embeds;
 *   relations to another kind go through core (querying/embedding-relations.ts: the target's module
 *   declares how its objects are read and presented), and a response schema embeds another kind's
 *   published shape (<resource>.representation.ts).
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
  '^bench/bulk\\.ts$',
  '^bench/console-scale\\.ts$',
];

/** A module's SQL files: its repository and its compiled statements, private to the module. */
const MODULE_SQL = '^src/modules/[^/]+/.*\\.(repository|statements)\\.ts$';

/** What lies above core: nothing in src/core may import these. */
const ABOVE_CORE = '^src/(modules|graphql|config|demo)/|^src/(services|app|cli|server|bootstrap)\\.ts$';

/** A forbidden import: every rule here is an error (`npm run deps` fails on it). */
const forbid = (name, comment, from, to) => ({ name, severity: 'error', comment, from, to });

module.exports = {
  forbidden: [
    forbid('no-circular', 'A file circle: split the files so that imports run one way.', {}, { circular: true }),
    forbid(
      'core-is-the-floor',
      'src/core imports nothing above it; pass values or functions in from the caller (src/app.ts).',
      { path: '^src/core/' },
      { path: ABOVE_CORE },
    ),
    forbid(
      'no-foreign-repository',
      "Only a module's own files import its repository or its compiled statements; others use its service or its *.reads.ts.",
      { path: '^src/modules/([^/]+)/' },
      { path: MODULE_SQL, pathNot: '^src/modules/$1/' },
    ),
    forbid(
      'no-repository-outside-modules',
      "Runtime code outside src/modules (entry points, wiring, demo) does not reach a module's repository either.",
      { pathNot: ['^src/modules/', ...TEST_ONLY] },
      { path: MODULE_SQL },
    ),
    forbid(
      'no-foreign-presentation',
      "A module embeds another kind through core's embed declarations (toOne/toMany) and its published <resource>.representation.ts, never its presenter, schemas or embeds.",
      {
        path: '^src/modules/([^/]+)/',
        pathNot: [
          ...TEST_ONLY,
          // An avatar change is the user's change: its `user.updated` event carries the user's own
          // representation, which only users' presenter makes.
          '^src/modules/avatars/avatars\\.module\\.ts$',
        ],
      },
      { path: '^src/modules/[^/]+/.*\\.(presenter|schemas|embeds)\\.ts$', pathNot: '^src/modules/$1/' },
    ),
    forbid(
      'compiled-statements-confined',
      'statementCache/shapedStatement and readRows are for src/core and *.statements.ts files only: a repository reads through Kysely or core (by-id readers, list statements, counter sums), or moves its compiled statements into its own <resource>.statements.ts.',
      { pathNot: ['^src/core/', '\\.statements\\.ts$', ...TEST_ONLY] },
      { path: '^src/core/db/(statement-cache|fast-read)\\.ts$' },
    ),
    forbid(
      'migrations-are-history',
      'Only the migrator reads migrations: a constant two places need lives with its owner (a migration keeps its own copy).',
      { pathNot: ['^src/core/db/migrate\\.ts$', '^src/core/db/migrations/', ...TEST_ONLY] },
      { path: '^src/core/db/migrations/' },
    ),
    forbid('runtime-not-test', 'Runtime code never imports test code.', { pathNot: TEST_ONLY }, { path: TEST_ONLY }),
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
