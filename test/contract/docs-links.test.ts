import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SKIP = new Set(['node_modules', '.git', 'data']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** `[text](target)` links that are not URLs, mail addresses or in-page anchors. */
function relativeTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('documentation links', () => {
  it('every relative link in a Markdown file resolves to a file inside the repository (a clone has nothing else)', () => {
    const broken: string[] = [];
    for (const file of markdownFiles(ROOT)) {
      for (const target of relativeTargets(readFileSync(file, 'utf8'))) {
        const path = resolve(dirname(file), decodeURIComponent(target));
        const inside = !relative(ROOT, path).startsWith('..');
        if (!inside || !existsSync(path)) broken.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('every top-level folder of src/ has a README.md saying what lives there', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    assert.ok(folders.length > 0);
    assert.deepEqual(
      folders
        .filter((folder) => !existsSync(join(ROOT, 'src', folder.name, 'README.md')))
        .map((folder) => `src/${folder.name}/`),
      [],
    );
  });
});
