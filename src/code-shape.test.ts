import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The shape of the runtime code that the dependency rules (.dependency-cruiser.cjs) cannot see:
 * small files, libraries through their public entry points only, no test support among runtime
 * files, a floor (src/core) that names no module's table, and a README in every top-level folder.
 */

const SRC = resolve(import.meta.dirname);
const MAX_LINES = 300;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const isTest = (path: string) => /\.test\.ts$/.test(path);
const runtimeFiles = filesUnder(SRC).filter((path) => path.endsWith('.ts') && !isTest(path));
const rel = (path: string) => relative(SRC, path);

/**
 * What a measurement looks like in prose: a ratio, a time with a fraction or in microseconds, a latency
 * percentile or median with its figure, a rate, a load average, a workload's score, a session of the diary.
 * A whole number of milliseconds that is a setting or a step of the code ("50 ms after a commit") is
 * behaviour, and stays.
 */
const benchmarkFigures: ReadonlyArray<readonly [string, RegExp]> = [
  ['a ratio', /\d\.\d+\s?×|×\s?\d+\.\d+|(?<![\d.])[01]\.\d{2,3}(?![\d.])/],
  ['a timing', /\d\s?µs\b|(?<![\d.])\d+\.\d+\s?(?:ms|s)\b/],
  ['a percentile or median', /\b(?:p50|p90|p99|median)\b[^.;]{0,20}\d/i],
  ['a rate', /\b(?:req\/s|answers?\/s|requests a second|answers a second)\b/],
  ['a load average', /\bload(?: average)?\s+\d/i],
  ['a workload score', /\bW\d\s+\d\.\d/],
  ['a diary entry', /\bsession \d+|bench\/journal/i],
];

describe('the shape of the runtime code under src/', () => {
  it(`has no file over ${MAX_LINES} lines`, () => {
    // A generated file (GraphQL's argument types, one per input of the schema) grows with the schema, not by hand.
    const long = runtimeFiles
      .filter((path) => !path.endsWith('.generated.ts'))
      .map((path) => [rel(path), readFileSync(path, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    assert.deepEqual(long, []);
  });

  it('points to bench/RESULTS.md from at most 10 places, and names no issue or session', () => {
    const pointers = runtimeFiles.filter((path) => readFileSync(path, 'utf8').includes('bench/RESULTS.md'));
    assert.ok(
      pointers.length <= 10,
      `${pointers.length} files point to bench/RESULTS.md:\n${pointers.map(rel).join('\n')}`,
    );
    const diary = runtimeFiles.filter((path) => /\b(issue|session) #?\d+/i.test(readFileSync(path, 'utf8')));
    assert.deepEqual(diary.map(rel), [], 'a comment says why, not which issue or session');
  });

  it("imports no dependency's private dist/ or lib/ path", () => {
    const privatePath = /(?:from\s+|import\(\s*|require\(\s*)['"](?:@[^/'"]+\/)?[^./'"][^/'"]*\/(?:dist|lib)\//;
    assert.deepEqual(runtimeFiles.filter((path) => privatePath.test(readFileSync(path, 'utf8'))).map(rel), []);
  });

  it('runs GraphQL on one engine: no runtime file imports mercurius, and one file compiles with graphql-jit', () => {
    const importing = (name: string) =>
      runtimeFiles
        .filter((path) =>
          new RegExp(`(?:from\\s+|import\\s*\\(?\\s*)['"]${name}['"/]`).test(readFileSync(path, 'utf8')),
        )
        .map(rel);
    assert.deepEqual(importing('mercurius'), []);
    assert.deepEqual(importing('graphql-jit'), ['graphql/operation-cache.ts']);
  });

  it('holds no test support (it lives under test/support/)', () => {
    const support = filesUnder(SRC).filter((path) => /test-support|fixture/.test(path) && !isTest(path));
    assert.deepEqual(support.map(rel), []);
  });

  it("keeps src/core free of every module's table names", () => {
    const moduleTables = filesUnder(join(SRC, 'modules'))
      .filter((path) => path.endsWith('.table.ts'))
      .flatMap((path) => {
        const block = /interface Tables \{([^}]*)\}/.exec(readFileSync(path, 'utf8'))?.[1] ?? '';
        return [...block.matchAll(/^\s*(\w+)\s*:/gm)].map((m) => m[1]!);
      });
    assert.ok(
      moduleTables.includes('users') && moduleTables.includes('orders'),
      `module tables found: ${moduleTables.join(', ')}`,
    );
    const named = runtimeFiles
      .filter((path) => rel(path).startsWith('core/') && !rel(path).startsWith('core/db/migrations/'))
      .flatMap((path) => {
        const text = readFileSync(path, 'utf8');
        return moduleTables
          .filter((table) => new RegExp(`['"\`]${table}['"\`]`).test(text))
          .map((table) => `${rel(path)}: ${table}`);
      });
    assert.deepEqual(named, []);
  });

  it('keeps its READMEs maps of their folders: no benchmark figures (they are in bench/RESULTS.md)', () => {
    const readmes = filesUnder(SRC).filter((path) => path.endsWith('README.md'));
    assert.ok(readmes.length > 10, `READMEs found: ${readmes.length}`);
    const found = readmes.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          benchmarkFigures
            .filter(([, pattern]) => pattern.test(line))
            .map(([what]) => `${rel(path)}:${index + 1}: ${what}: ${line.trim().slice(0, 100)}`),
        ),
    );
    assert.deepEqual(found, [], 'a README says what is where and why; figures go to bench/RESULTS.md');
  });

  it('has a README in every top-level folder', () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    assert.deepEqual(
      folders.filter((name) => !readdirSync(join(SRC, name)).includes('README.md')),
      [],
    );
  });

  it('keeps products to 18 runtime files: one read path, the list writes in one file', () => {
    const products = runtimeFiles.filter((path) => rel(path).startsWith(join('modules', 'products') + '/'));
    assert.ok(products.length <= 18, products.map(rel).join('\n'));
  });
});
