import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The contract in the repository carries every section the code and the docs cite. A citation names the
 * document ("DECISIONS §14", "DECISIONS.md §10", "DECISIONS §15 with §6"); inside DECISIONS.md itself a bare
 * "§N" is one of its own sections. Other documents' sections ("OPERATIONS.md §9", "RFC 9110 §8.6") are theirs.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DECISIONS = join(ROOT, 'docs/specification/DECISIONS.md');
const SKIP = new Set(['node_modules', '.git', 'data', 'dist']);
const SCANNED = ['src', 'test', 'docs', 'bench', 'scripts', 'bin', 'README.md'];

function textFiles(path: string): string[] {
  const name = path.split('/').pop()!;
  if (SKIP.has(name)) return [];
  try {
    return readdirSync(path, { withFileTypes: true }).flatMap((entry) => textFiles(join(path, entry.name)));
  } catch {
    return /\.(ts|js|cjs|mjs|md|graphql|json)$/.test(path) ? [path] : [];
  }
}

/** The section numbers a text cites, each with where it stands. */
function citedSections(text: string, ownDocument: boolean): number[] {
  const chained = /(?:\s*(?:,|and|with|or)\s*§ ?\d+)*/.source;
  const cite = ownDocument ? /§ ?(\d+)/g : new RegExp(`DECISIONS(?:\\.md)?\\)?,? ?\\(?§ ?(\\d+)(${chained})`, 'g');
  return [...text.matchAll(cite)].flatMap((match) => [
    Number(match[1]),
    ...[...(match[2] ?? '').matchAll(/§ ?(\d+)/g)].map((more) => Number(more[1])),
  ]);
}

function headingSections(markdown: string): number[] {
  return [...markdown.matchAll(/^## (\d+)\. /gm)].map((match) => Number(match[1]));
}

describe('the contract copy, docs/specification/DECISIONS.md', () => {
  const headings = headingSections(readFileSync(DECISIONS, 'utf8'));

  it('reads citations and headings as the documents write them', () => {
    assert.deepEqual(
      citedSections('as DECISIONS §14 says; (DECISIONS.md §10) and DECISIONS §15 with §6', false),
      [14, 10, 15, 6],
    );
    assert.deepEqual(citedSections('docs/OPERATIONS.md §9 and RFC 9110 §8.6', false), []);
    assert.deepEqual(headingSections('## 1. Running it\ntext\n## 12. Querying\n### 12.1 not a section'), [1, 12]);
  });

  it('has its sections numbered 1, 2, 3 ... without a gap', () => {
    assert.ok(headings.length >= 20, `sections: ${headings.join(', ')}`);
    assert.deepEqual(
      headings,
      headings.map((_, index) => index + 1),
    );
  });

  it('has a heading for every section the code, the tests and the docs cite', () => {
    const present = new Set(headings);
    const missing = SCANNED.flatMap((top) => textFiles(join(ROOT, top))).flatMap((file) =>
      citedSections(readFileSync(file, 'utf8'), file === DECISIONS)
        .filter((section) => !present.has(section))
        .map((section) => `${relative(ROOT, file)}: §${section}`),
    );
    assert.deepEqual(missing, []);
  });

  it('is cited at all: the scan finds the citations the code is known to make', () => {
    const cited = new Set(
      SCANNED.flatMap((top) => textFiles(join(ROOT, top))).flatMap((file) =>
        citedSections(readFileSync(file, 'utf8'), file === DECISIONS),
      ),
    );
    for (const section of [10, 12, 13, 14, 16, 17]) assert.ok(cited.has(section), `§${section} is cited`);
  });
});
