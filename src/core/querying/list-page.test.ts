import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../db/database.ts';
import { DEFAULT_LIST_SETTINGS, defineListGrammar } from './list-grammar.ts';
import { ESTIMATE_TRUSTED_ABOVE, readQueriedPage } from './list-page.ts';
import { listRequestOf, parseListQuery } from './list-query-parse.ts';
import type { ListStatements } from './list-sql.ts';

const grammar = defineListGrammar({
  resource: 'widgets',
  tieBreak: 'asc',
  fields: { label: { column: 'label', type: 'text' } },
});
const LIMIT = DEFAULT_LIST_SETTINGS.countExactLimit;
const db = {} as Db;

/**
 * Statements over `matching` rows (ids 1..matching) whose planner's estimate is `estimate` (undefined:
 * SQLite's, none), recording which of them a page ran.
 */
function fakeStatements(matching: number, estimate: number | undefined) {
  const ran: string[] = [];
  const statements: ListStatements<{ id: number }> = {
    async readPage(_db, _plan, window) {
      ran.push('page');
      const rows = [];
      for (let id = window.offset + 1; id <= Math.min(matching, window.offset + window.limit); id += 1)
        rows.push({ id });
      return rows;
    },
    async count() {
      ran.push('count');
      return matching;
    },
    async countUpTo(_db, _plan, cap) {
      ran.push('countUpTo');
      return Math.min(matching, cap);
    },
    async estimate() {
      ran.push('estimate');
      return estimate;
    },
  };
  return { statements, ran };
}

async function totalOf(matching: number, estimate: number | undefined, offset = 0) {
  const { statements, ran } = fakeStatements(matching, estimate);
  const query = parseListQuery(grammar, listRequestOf({ 'label[contains]': 'x', count: 'estimated' }), {
    admin: false,
    ...DEFAULT_LIST_SETTINGS,
  });
  const page = await readQueriedPage(db, grammar, statements, query, { page: 1, limit: 10, offset });
  return { total: page.total, estimated: page.totalEstimated === true, ran: ran.filter((s) => s !== 'page') };
}

describe('count=estimated', () => {
  it('answers the planner’s estimate without counting when it is far above COUNT_EXACT_LIMIT', async () => {
    const estimate = LIMIT * ESTIMATE_TRUSTED_ABOVE + 1;
    assert.deepEqual(await totalOf(60_000, estimate), { total: estimate, estimated: true, ran: ['estimate'] });
  });

  it('gives the exact total when the page shows where the list ends, whatever the estimate', async () => {
    // The planner may multiply selectivities of correlated conditions into a large number for a few rows.
    assert.deepEqual(await totalOf(7, 100_000), { total: 7, estimated: false, ran: ['estimate'] });
    assert.deepEqual(await totalOf(0, 100_000), { total: 0, estimated: false, ran: ['estimate'] });
    assert.deepEqual(await totalOf(25, 100_000, 20), { total: 25, estimated: false, ran: ['estimate'] });
    // A page past the end tells nothing.
    assert.deepEqual(await totalOf(25, 100_000, 40), { total: 100_000, estimated: true, ran: ['estimate'] });
  });

  it('counts up to COUNT_EXACT_LIMIT + 1 when the estimate is not far above it: exact below, flagged above', async () => {
    const near = LIMIT * ESTIMATE_TRUSTED_ABOVE;
    assert.deepEqual(await totalOf(LIMIT, near), { total: LIMIT, estimated: false, ran: ['estimate', 'countUpTo'] });
    assert.deepEqual(await totalOf(LIMIT + 500, 300), {
      total: LIMIT + 1,
      estimated: true,
      ran: ['estimate', 'countUpTo'],
    });
  });

  it('counts exactly, once, without a planner (SQLite)', async () => {
    for (const matching of [LIMIT + 500, 12])
      assert.deepEqual(await totalOf(matching, undefined), {
        total: matching,
        estimated: false,
        ran: ['estimate', 'count'],
      });
  });
});
