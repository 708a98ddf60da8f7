import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, globSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

/**
 * The dependency rules of .dependency-cruiser.cjs (run by `npm run deps` in `npm test`) catch what
 * they forbid: each rule is broken on purpose in a small tree of files written to a temporary
 * folder, and dependency-cruiser, run with the project's own configuration, must report exactly
 * those imports and none of the allowed ones beside them.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

function depcruise(cwd: string, args: string[]) {
  const run = spawnSync(process.execPath, [DEPCRUISE, ...args, '--config', CONFIG], { cwd, encoding: 'utf8' });
  assert.equal(run.error, undefined);
  return run;
}

/** Runs the CLI on `.` in `cwd` and returns the violations it reports. */
function violationsIn(cwd: string): Violation[] {
  const run = depcruise(cwd, ['.', '--output-type', 'json']);
  assert.ok(run.stdout.startsWith('{'), `depcruise printed no report: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const asText = (violations: Violation[]) => violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

/** Each file with the files it imports (as the project does: relative paths with `.ts`). */
const TREE: Record<string, string[]> = {
  // no-circular (through a type-only import as well)
  'src/core/circle/a.ts': ['./b.ts'],
  'src/core/circle/b.ts': ['type:./a.ts'],
  // core-is-the-floor
  'src/core/floor.ts': [
    '../config/config.ts',
    '../modules/users/users.service.ts',
    '../graphql/schema.ts',
    '../app.ts',
    './clock.ts',
  ],
  'src/core/clock.ts': [],
  'src/config/config.ts': [],
  'src/graphql/schema.ts': ['../modules/users/users.service.ts'],
  'src/app.ts': ['./core/clock.ts', './config/config.ts'],
  // no-foreign-repository: posts reads users' repository and compiled statements; users' own files may
  'src/modules/posts/posts.service.ts': [
    '../users/users.repository.ts',
    '../users/users.statements.ts',
    '../users/users.reads.ts',
    './posts.repository.ts',
    // compiled-statements-confined: a service compiling statements
    '../../core/db/statement-cache.ts',
  ],
  'src/modules/posts/posts.repository.ts': [],
  'src/modules/users/users.service.ts': ['./users.repository.ts', '../../core/clock.ts'],
  'src/modules/users/users.reads.ts': ['./users.repository.ts'],
  // compiled-statements-confined: a repository running compiled statements itself; its *.statements.ts,
  // core and tests may
  'src/modules/users/users.repository.ts': ['../../core/db/fast-read.ts', './users.statements.ts'],
  'src/modules/users/users.statements.ts': ['../../core/db/statement-cache.ts', '../../core/db/fast-read.ts'],
  'src/core/db/readers.ts': ['./statement-cache.ts', './fast-read.ts'],
  'src/core/db/statement-cache.ts': [],
  'src/core/db/fast-read.ts': [],
  // no-foreign-presentation: posts embeds users through their presenter and schemas; their published
  // representation, its own presenter and its tests may
  'src/modules/posts/posts.embeds.ts': [
    '../users/users.presenter.ts',
    '../users/users.representation.ts',
    './posts.presenter.ts',
  ],
  'src/modules/posts/posts.schemas.ts': ['../users/users.schemas.ts', '../users/users.representation.ts'],
  'src/modules/posts/posts.presenter.ts': [],
  'src/modules/users/users.schemas.ts': [],
  'src/modules/users/users.representation.ts': [],
  'src/modules/posts/posts.include.test.ts': ['../users/users.presenter.ts', '../users/users.embeds.ts'],
  'src/modules/users/users.embeds.ts': [],
  // no-repository-outside-modules
  'src/cli.ts': [
    './modules/users/users.repository.ts',
    './modules/users/users.statements.ts',
    './modules/users/users.reads.ts',
  ],
  // runtime-not-test; test code may import test code and runtime code
  'src/server.ts': ['./test-support/test-server.ts', './app.ts'],
  'src/modules/users/users.presenter.ts': ['../../../test/helpers.ts', './users.fixture.ts'],
  'src/core/http/route.ts': ['../db/db.test-support.ts'],
  'src/core/db/db.test-support.ts': [],
  'src/modules/users/users.fixture.ts': [],
  'src/modules/users/users.test-support.ts': ['./users.repository.ts'],
  'src/modules/users/users.service.test.ts': [
    './users.test-support.ts',
    '../../core/db/fast-read.ts',
    '../../test-support/test-server.ts',
    './users.service.ts',
  ],
  'src/test-support/test-server.ts': ['../app.ts'],
  'test/helpers.ts': ['../src/test-support/test-server.ts'],
};

function writeTree(dir: string): void {
  for (const [file, imports] of Object.entries(TREE)) {
    const lines = imports.map((spec, index) =>
      spec.startsWith('type:')
        ? `import type { T${index} } from '${spec.slice(5)}';`
        : `import { v${index} } from '${spec}';`,
    );
    const used = imports.map((spec, index) =>
      spec.startsWith('type:') ? `export type U${index} = T${index};` : `export const u${index} = v${index};`,
    );
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, [...lines, ...used, 'export const v = 1;', 'export type T = number;', ''].join('\n'));
  }
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
}

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  let dir: string;
  let violations: Violation[];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'dependency-rules-'));
    writeTree(dir);
    violations = violationsIn(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** The imports one rule reports in the tree, as `rule: from → to`, sorted. */
  const reportedBy = (rule: string) => asText(violations.filter((v) => v.rule.name === rule));

  it('fails the run when a rule is broken, as `npm run deps` runs it', () => {
    const run = depcruise(dir, ['.']);
    assert.notEqual(run.status, 0);
    assert.match(run.stdout, /error core-is-the-floor: src\/core\/floor\.ts → src\/config\/config\.ts/);
  });

  it('reports a file circle', () => {
    const circles = violations.filter((v) => v.rule.name === 'no-circular');
    assert.ok(circles.length > 0, 'no circle reported');
    for (const circle of circles) {
      assert.deepEqual(
        new Set(circle.cycle?.map((step) => step.name) ?? []),
        new Set(['src/core/circle/a.ts', 'src/core/circle/b.ts']),
      );
    }
  });

  it('reports each import of core above it, and nothing else', () => {
    assert.deepEqual(reportedBy('core-is-the-floor'), [
      'core-is-the-floor: src/core/floor.ts → src/app.ts',
      'core-is-the-floor: src/core/floor.ts → src/config/config.ts',
      'core-is-the-floor: src/core/floor.ts → src/graphql/schema.ts',
      'core-is-the-floor: src/core/floor.ts → src/modules/users/users.service.ts',
    ]);
  });

  /** The rules about what a module may reach, each with the imports of the tree it must report, and only those. */
  const REACH: { behaviour: string; rule: string; reported: string[] }[] = [
    {
      behaviour: "reports a module reading another module's repository or statements, not its reads nor a module's own",
      rule: 'no-foreign-repository',
      reported: [
        'src/modules/posts/posts.service.ts → src/modules/users/users.repository.ts',
        'src/modules/posts/posts.service.ts → src/modules/users/users.statements.ts',
      ],
    },
    {
      behaviour: "reports code outside the modules reaching a module's repository or statements, not its reads",
      rule: 'no-repository-outside-modules',
      reported: [
        'src/cli.ts → src/modules/users/users.repository.ts',
        'src/cli.ts → src/modules/users/users.statements.ts',
      ],
    },
    {
      behaviour:
        "reports a module importing another module's presenter or schemas, not its representation nor from tests",
      rule: 'no-foreign-presentation',
      reported: [
        'src/modules/posts/posts.embeds.ts → src/modules/users/users.presenter.ts',
        'src/modules/posts/posts.schemas.ts → src/modules/users/users.schemas.ts',
      ],
    },
    {
      behaviour:
        'reports the compiled-statement path used outside core and *.statements.ts files, and not by them or tests',
      rule: 'compiled-statements-confined',
      reported: [
        'src/modules/posts/posts.service.ts → src/core/db/statement-cache.ts',
        'src/modules/users/users.repository.ts → src/core/db/fast-read.ts',
      ],
    },
  ];
  for (const { behaviour, rule, reported } of REACH) {
    it(behaviour, () =>
      assert.deepEqual(
        reportedBy(rule),
        reported.map((arrow) => `${rule}: ${arrow}`),
      ),
    );
  }

  it('reports runtime code importing test code, and not test code importing either', () => {
    assert.deepEqual(reportedBy('runtime-not-test'), [
      'runtime-not-test: src/core/http/route.ts → src/core/db/db.test-support.ts',
      'runtime-not-test: src/modules/users/users.presenter.ts → src/modules/users/users.fixture.ts',
      'runtime-not-test: src/modules/users/users.presenter.ts → test/helpers.ts',
      'runtime-not-test: src/server.ts → src/test-support/test-server.ts',
    ]);
  });

  it('reports nothing beyond those', () => {
    const known = new Set([
      'no-circular',
      'core-is-the-floor',
      'no-foreign-repository',
      'no-repository-outside-modules',
      'compiled-statements-confined',
      'no-foreign-presentation',
      'runtime-not-test',
    ]);
    assert.deepEqual(
      violations.filter((v) => !known.has(v.rule.name)),
      [],
    );
  });

  it('passes on the project itself, seeing its .ts imports', () => {
    const run = depcruise(ROOT, ['.']);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    // The arrows are really seen: a file circle once here is now one way.
    const arrows = depcruise(ROOT, ['src/core/http/versioned-api.ts', '--output-type', 'text']).stdout;
    assert.match(arrows, /^src\/core\/http\/versioned-api\.ts → src\/core\/openapi\/openapi\.plugin\.ts$/m);
    assert.match(arrows, /^src\/core\/openapi\/version-document\.ts → src\/core\/http\/versioning\.ts$/m);
    assert.doesNotMatch(arrows, /^src\/core\/http\/versioning\.ts → src\/core\/openapi\//m);
  });

  it('finds no test support among the runtime code under src/ (it lives in test/support/)', () => {
    const support = globSync(['src/**/*.test-support.ts', 'src/**/test-support/**', 'src/**/*.fixture.ts'], {
      cwd: ROOT,
    });
    assert.deepEqual(support, []);
  });
});
