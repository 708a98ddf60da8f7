import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { createDatabase, type Db } from '../db/database.ts';
import { AppError } from '../errors/app-error.ts';
import { markedHtml } from './highlights.ts';
import { closestWord, editDistance } from './suggestion.ts';
import { parseWebSearch, toFts5Match, toTsquery, toWebSearch } from './web-search.ts';

describe('the web-search syntax of q', () => {
  it('reads words, phrases, prefixes, exclusions and or', () => {
    const parsed = parseWebSearch('Wooden "dining room"* -steel key* or LAMP');
    assert.equal(toWebSearch(parsed), 'wooden "dining room"* -steel key* or lamp');
    assert.equal(toTsquery(parsed), "('wooden' & ('dining' <-> 'room':*) & !'steel' & 'key':*) | ('lamp')");
    assert.equal(toFts5Match(parsed), '(("wooden" AND "dining room"* AND "key"*) NOT "steel") OR ("lamp")');
  });

  it('cuts words at anything but letters, digits and marks, so no character is syntax', () => {
    assert.equal(toWebSearch(parseWebSearch('name:chair^2 NEAR(a, b) (x')), '"name chair 2" near b x');
    assert.equal(toWebSearch(parseWebSearch("rock'n\u0000café")), '"rock n café"');
  });

  it('drops English stop words, alone and at the ends of a phrase', () => {
    assert.equal(toWebSearch(parseWebSearch('the chair "of the table" AND')), 'chair table');
    assert.deepEqual(parseWebSearch('the of "and"'), { groups: [] });
    assert.deepEqual(parseWebSearch('" * - ()'), { groups: [] });
  });

  it('refuses excluding words without a word to find, and too many terms, naming q', () => {
    for (const q of ['-chair', 'chair or -table', 'a b c d e f g h i j k l m n o p q r'.replace(/ /g, 'x ')]) {
      assert.throws(
        () => parseWebSearch(q),
        (error: unknown) => error instanceof AppError && error.status === 422 && error.details?.[0]?.field === 'q',
        q,
      );
    }
  });

  it('escapes highlighted text for HTML and keeps the marks balanced', () => {
    assert.equal(markedHtml('<b>\uE000x\uE001</b> & "y"'), '&lt;b&gt;<mark>x</mark>&lt;/b&gt; &amp; &quot;y&quot;');
    assert.equal(markedHtml('\uE001a\uE000\uE000b'), 'a<mark>b</mark>');
  });

  it('measures edits with swaps of neighbours as one, and picks the closest word', () => {
    assert.equal(editDistance('chiar', 'chair', 2), 1);
    assert.equal(editDistance('kitten', 'sitting', 2), 3);
    assert.equal(closestWord('chiars', ['chair', 'chairs', 'cheers']), 'chairs');
    assert.equal(closestWord('cat', ['cot', 'car', 'dog']), 'car');
    assert.equal(closestWord('zzz', ['abc']), undefined);
  });
});

/** Any text at all: each database accepts the expression made of it (or the parser refuses it with a 422). */
for (const dialect of DIALECTS) {
  describe(`search expressions on ${dialect.name}`, { skip: dialect.skip }, () => {
    let db: Db;
    let drop: () => Promise<void>;

    before(async () => {
      const database = await dialect.createDatabase();
      drop = database.drop;
      db = createDatabase(database.url);
      if (dialect.name === 'sqlite') {
        await sql`create virtual table t using fts5(a, b, tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
        await sql`insert into t (a, b) values ('a chair of oak', 'running key')`.execute(db);
      }
    });
    after(async () => {
      await db?.destroy();
      await drop?.();
    });

    it('takes every expression the parser makes of any text', async () => {
      const text = fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc
          .array(
            fc.constantFrom(
              '"',
              '*',
              '-',
              'or',
              'NEAR(',
              ':',
              '^',
              '(',
              ')',
              ' ',
              'AND',
              'chair',
              '\u0000',
              '\ud800',
              "'",
              '\\',
              '!',
              '&',
              '|',
              '<->',
            ),
            { maxLength: 20 },
          )
          .map((parts) => parts.join('')),
      );
      await fc.assert(
        fc.asyncProperty(text, async (q) => {
          let expression;
          try {
            expression = parseWebSearch(q);
          } catch (error) {
            assert.ok(error instanceof AppError && error.status === 422, String(error));
            return;
          }
          if (expression.groups.length === 0) return;
          if (dialect.name === 'postgres') {
            await sql`select to_tsquery('english'::regconfig, ${toTsquery(expression)})`.execute(db);
          } else {
            await sql`select rowid from t where t match ${toFts5Match(expression)}`.execute(db);
          }
        }),
        { numRuns: 300 },
      );
    });
  });
}
