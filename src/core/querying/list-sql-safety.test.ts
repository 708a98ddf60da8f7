import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDatabase } from '../db/database.ts';
import { ASCENDING, directionSql, sortDirectionOf, type SortDirection } from '../db/sort-direction.ts';
import { AppError } from '../errors/app-error.ts';
import { DEFAULT_LIST_SETTINGS, defineListGrammar } from './list-grammar.ts';
import { orderOf } from './list-keyset.ts';
import { listRequestOf, parseListQuery } from './list-query-parse.ts';
import { createListStatements, listColumnsOf } from './list-sql.ts';

/**
 * DECISIONS §13 at the list's SQL: keywords and columns only from closed sets declared in code, and the
 * places that write them refuse anything else at run time, whatever got around the types (issue 51).
 */

const grammar = defineListGrammar({
  resource: 'widgets',
  tieBreak: 'follow',
  fields: { label: { column: 'label', type: 'text' }, size: { column: 'size_cm', type: 'integer', nullable: true } },
});
const asker = { admin: false, ...DEFAULT_LIST_SETTINGS };
const INJECTED = [
  'x',
  'asc,(select 1)',
  'desc, (SELECT 1 FROM pg_sleep(3))',
  'asc --',
  "'",
  'ASC',
  ' asc',
  'asc\u0000',
];

describe('list SQL keeps client text out of the statement', () => {
  const db = createDatabase('sqlite::memory:');
  after(() => db.destroy());

  it('names a direction only for the exact texts asc and desc', () => {
    assert.equal(sortDirectionOf('asc'), ASCENDING);
    assert.equal(sortDirectionOf('desc'), 'desc');
    for (const text of [...INJECTED, undefined, null, 1, ['asc'], { toString: () => 'asc' }]) {
      assert.equal(sortDirectionOf(text), undefined, String(text));
    }
  });

  it('ignores order on a list that does not take it, whatever its text: the same query as without it', () => {
    const without = parseListQuery(grammar, listRequestOf({ sort: 'label' }), asker);
    for (const order of INJECTED) {
      const withOrder = parseListQuery(grammar, listRequestOf({ sort: 'label', order }), asker);
      assert.deepEqual(withOrder, without, order);
    }
  });

  it('refuses any order but asc or desc with 422 naming order on a list that takes it', () => {
    const seedList = { ...grammar, orderParameter: true };
    for (const order of INJECTED) {
      assert.throws(
        () => parseListQuery(seedList, listRequestOf({ sort: 'label', order }), asker),
        (error: unknown) => error instanceof AppError && error.status === 422 && error.details?.[0]?.field === 'order',
        order,
      );
    }
    const descending = parseListQuery(seedList, listRequestOf({ sort: 'label', order: 'desc' }), asker);
    assert.deepEqual(
      descending.sort.map((key) => key.direction),
      ['desc'],
    );
  });

  it('refuses to write a forged direction into ORDER BY or a keyset comparison', () => {
    for (const text of INJECTED) {
      const forged = text as SortDirection;
      assert.throws(() => directionSql(forged), /must be asc or desc/, text);
      assert.throws(() => orderOf([{ column: 'label', direction: forged, nullable: false }]), /must be asc or desc/);
    }
  });

  it('refuses a plan naming a column its list did not declare, before any SQL runs', async () => {
    await sql`create table widgets (id integer primary key, label text, size_cm integer, secret text)`.execute(db);
    const statements = createListStatements<{ id: number }>('widgets', listColumnsOf([grammar], 'id'));
    const window = { limit: 10, offset: 0 };
    const key = (column: string) => ({ column, direction: ASCENDING, nullable: false });
    assert.deepEqual(await statements.readPage(db, { conditions: [], keys: [key('label'), key('id')] }, window), []);
    await assert.rejects(
      statements.readPage(db, { conditions: [], keys: [key('secret'), key('id')] }, window),
      /column "secret" is not one of its declared columns/,
    );
    const condition = { field: 'secret', column: 'secret', operator: 'eq' as const, value: 'x' };
    await assert.rejects(statements.count(db, { conditions: [condition], keys: [] }), /not one of its declared/);
  });
});
