import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const DOC = readFileSync(new URL('../../docs/SECURITY.md', import.meta.url), 'utf8');
const RISKS = ['API1', 'API2', 'API3', 'API4', 'API5', 'API6', 'API7', 'API8', 'API9', 'API10'];

describe('docs/SECURITY.md', () => {
  it('maps each of the OWASP API Top 10 (2023) risks to a mechanism and at least one test', () => {
    for (const risk of RISKS) {
      const row = DOC.split('\n').find((line) => line.startsWith(`| **${risk} `));
      assert.ok(row, `no row for ${risk}`);
      assert.match(row, /`(?:src|test)\/[^`]+\.test\.ts` › \*[^*]+\*/, `${risk} names no test`);
    }
  });

  it('cites only tests that exist, by file and exact name', () => {
    const cited: string[] = [];
    for (const row of DOC.split('\n').filter((line) => /^\| \*\*API\d+ /.test(line))) {
      let file = '';
      // Each citation is `file` › *name*, further names of the same file follow as , › *name*.
      for (const match of row.matchAll(/(?:`((?:src|test)\/[^`]+\.test\.ts)` )?› \*([^*]+)\*/g)) {
        file = match[1] ?? file;
        assert.ok(file, `a test name without a file: ${match[2]}`);
        const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
        assert.ok(source.includes(`'${match[2]}'`), `${file} has no test named "${match[2]}"`);
        cited.push(match[2]!);
      }
    }
    assert.ok(cited.length >= 20, `only ${cited.length} tests cited`);
  });

  it('audits every place client text could meet SQL with a reason and an existing test (issue 51)', () => {
    const section = DOC.split('## SQL injection')[1]?.split('\n## ')[0];
    assert.ok(section, 'no "SQL injection" section');
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && !/^\| (place|---)/.test(line));
    assert.ok(rows.length >= 10, `only ${rows.length} places audited`);
    for (const row of rows) {
      for (const match of row.matchAll(/`((?:src|test)\/[^`]+\.test\.ts)`(?: › \*([^*]+)\*)?/g)) {
        const source = readFileSync(new URL(`../../${match[1]}`, import.meta.url), 'utf8');
        if (match[2]) assert.ok(source.includes(`'${match[2]}'`), `${match[1]} has no test named "${match[2]}"`);
      }
    }
  });
});
