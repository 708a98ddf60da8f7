import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDatabase, observeQueries } from '../db/database.ts';
import { PLANNED_PER_VALUES } from '../db/pg-named-statements.ts';
import { AppError } from '../errors/app-error.ts';
import { defineAggregateGrammar, listWeightWithFacets } from './aggregate-grammar.ts';
import { parseAggregate, parseFacets } from './aggregate-parse.ts';
import { divideHalfEven } from './aggregate-answer.ts';
import { createAggregateStatements } from './aggregate-sql.ts';

/** The aggregate grammar, parser and statements in isolation (the routes' behaviour: orders/products *.aggregate.test.ts). */

const grammar = defineAggregateGrammar({
  resource: 'widgets',
  measures: { price: { column: 'price_cents', fromCents: (cents) => cents / 100 }, size: { column: 'size_cm' } },
  groups: {
    colour: { column: 'colour', type: 'text' },
    ownerId: { column: 'owner_id', type: 'integer', adminOnly: true },
  },
  timeFields: { madeAt: { column: 'made_at' } },
  facets: ['colour'],
});
const user = { admin: false };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error;
  }
  assert.fail('expected a refusal');
}

describe('aggregates: grammar, parser and statements', () => {
  it('rounds a quotient half to even, either sign', () => {
    const cases: [number, number, number][] = [
      [5, 2, 2],
      [7, 2, 4],
      [3, 2, 2],
      [1, 2, 0],
      [10, 4, 2],
      [11, 4, 3],
      [-5, 2, -2],
      [-7, 2, -4],
      [1, 3, 0],
      [2, 3, 1],
    ];
    for (const [n, d, expected] of cases)
      assert.equal(divideHalfEven(BigInt(n), BigInt(d)), BigInt(expected), `${n}/${d}`);
  });

  it('reads measures, groups, sort and limit from closed sets, count always first', () => {
    const query = parseAggregate(
      grammar,
      {
        measures: 'sum(price), avg(size),sum(price)',
        groupBy: 'colour,madeAt:week',
        sort: '-sum(price),madeAt:week',
        limit: 5000,
      },
      user,
    );
    assert.deepEqual(
      query.measures.map((m) => m.name),
      ['count', 'sum(price)', 'avg(size)'],
    );
    assert.deepEqual(
      query.groups.map((g) => [g.name, g.column]),
      [
        ['colour', 'colour'],
        ['madeAt:week', 'made_at'],
      ],
    );
    assert.deepEqual(
      query.sort.map((s) => ['group' in s.by ? s.by.group.name : s.by.measure.name, s.direction]),
      [
        ['sum(price)', 'desc'],
        ['madeAt:week', 'asc'],
      ],
    );
    assert.equal(query.limit, 1000);
    assert.equal(parseAggregate(grammar, {}, user).limit, 100);
    assert.equal(parseAggregate(grammar, { limit: -3 }, user).limit, 1);
    assert.deepEqual(parseAggregate(grammar, { measures: ['max(size)'], groupBy: [] }, user).measures.length, 2);
  });

  it('refuses unknown names in a 422 per parameter, quoting only name-shaped text, and admin-only groups with 403', () => {
    const error = refusal(() =>
      parseAggregate(
        grammar,
        { measures: 'median(price),sum(weight),sum(', groupBy: 'madeAt:hour,madeAt,shape', sort: 'x y' },
        user,
      ),
    );
    assert.equal(error.status, 422);
    const messages = (error.details ?? []).map((d) => `${d.field}: ${d.message}`);
    assert.ok(
      messages.some((m) => m.startsWith('measures:') && m.includes('"median"')),
      messages.join('\n'),
    );
    assert.ok(messages.some((m) => m.startsWith('measures:') && m.includes('"weight"')));
    assert.ok(messages.some((m) => m.startsWith('measures:') && m.includes('"sum("')));
    assert.ok(messages.some((m) => m.startsWith('groupBy:') && m.includes('"hour"')));
    assert.ok(messages.some((m) => m.startsWith('groupBy:') && m.includes('bucket')));
    assert.ok(messages.some((m) => m.startsWith('groupBy:') && m.includes('"shape"')));
    assert.ok(messages.some((m) => m.startsWith('sort:') && m.includes('(not a name)')));
    assert.equal(refusal(() => parseAggregate(grammar, { groupBy: 'ownerId' }, user)).status, 403);
    assert.equal(parseAggregate(grammar, { groupBy: 'ownerId' }, { admin: true }).groups[0]!.column, 'owner_id');
    assert.equal(
      refusal(() => parseAggregate(grammar, { groupBy: Array(50).fill('colour').join(',') }, user)).status,
      422,
    );
  });

  it('reads facets from the declared list only, and weighs each one', () => {
    assert.deepEqual(parseFacets(grammar, 'colour, colour'), ['colour']);
    assert.deepEqual(parseFacets(grammar, undefined), []);
    assert.equal(refusal(() => parseFacets(grammar, 'colour,size')).status, 422);
    assert.equal(listWeightWithFacets(undefined), 1);
    assert.equal(listWeightWithFacets('colour'), 6);
    assert.equal(listWeightWithFacets('a,b,a'), 11);
  });

  it('marks every statement to be planned for its values, and answers over the declared columns', async () => {
    const db = createDatabase('sqlite::memory:');
    after(() => db.destroy());
    await sql`create table widgets (id integer primary key, colour text, owner_id integer, price_cents integer, size_cm integer, made_at text)`.execute(
      db,
    );
    await sql`insert into widgets (colour, owner_id, price_cents, size_cm, made_at) values ('red', 1, 105, 3, '2026-03-02T10:00:00.000Z'), ('red', 1, 100, 4, '2026-03-08T23:59:59.999Z'), ('blue', 2, 1, null, '2026-03-09T00:00:00.000Z')`.execute(
      db,
    );
    const texts: string[] = [];
    const stop = observeQueries(db, (text) => texts.push(text));
    const statements = createAggregateStatements('widgets', grammar, [
      'colour',
      'owner_id',
      'price_cents',
      'size_cm',
      'made_at',
    ]);
    const query = parseAggregate(grammar, { groupBy: 'madeAt:week', measures: 'avg(price),avg(size),max(size)' }, user);
    const answer = await statements.aggregate(db, [], query);
    const facets = await statements.facets(
      db,
      [{ field: 'colour', column: 'colour', operator: 'eq', value: 'red' }],
      ['colour'],
    );
    stop();
    assert.deepEqual(answer, {
      data: [
        {
          key: { 'madeAt:week': '2026-03-02T00:00:00.000Z' },
          count: 2,
          avg: { price: 1.02, size: 3.5 },
          max: { size: 4 },
        },
        {
          key: { 'madeAt:week': '2026-03-09T00:00:00.000Z' },
          count: 1,
          avg: { price: 0.01, size: null },
          max: { size: null },
        },
      ],
      groups: 2,
    });
    assert.deepEqual(facets, {
      colour: [
        { value: 'red', count: 2 },
        { value: 'blue', count: 1 },
      ],
    });
    assert.equal(texts.length, 2);
    for (const text of texts) assert.ok(text.endsWith(PLANNED_PER_VALUES), text);
  });

  it('answers a facet from the counted-facet hook when it can (no row read), else from the rows', async () => {
    const db = createDatabase('sqlite::memory:');
    after(() => db.destroy());
    await sql`create table widgets (id integer primary key, colour text, owner_id integer)`.execute(db);
    await sql`insert into widgets (colour, owner_id) values ('red', 1), ('red', 2), ('blue', 2)`.execute(db);
    const asked: unknown[] = [];
    const statements = createAggregateStatements('widgets', grammar, ['colour', 'owner_id'], {
      // The counters know every widget's colour, and nothing narrower.
      countedFacet: (_db, name, conditions) => {
        asked.push([name, conditions.map((condition) => condition.field)]);
        return conditions.length === 0 ? Promise.resolve([{ value: 'counted', count: 9 }]) : undefined;
      },
    });
    const red = { field: 'colour', column: 'colour', operator: 'eq' as const, value: 'red' };
    const owner = { field: 'ownerId', column: 'owner_id', operator: 'eq' as const, value: 2 };
    const texts: string[] = [];
    const stop = observeQueries(db, (text) => texts.push(text));
    const counted = await statements.facets(db, [red], ['colour']);
    const bounded = await statements.boundedFacets(db, [red], ['colour'], undefined, 100);
    assert.equal(texts.length, 0, texts.join('\n'));
    const read = await statements.facets(db, [red, owner], ['colour']);
    stop();
    assert.deepEqual(counted, { colour: [{ value: 'counted', count: 9 }] });
    assert.deepEqual(bounded, { facets: { colour: [{ value: 'counted', count: 9 }] }, estimated: false });
    assert.deepEqual(read, {
      colour: [
        { value: 'blue', count: 1 },
        { value: 'red', count: 1 },
      ],
    });
    // Asked with the facet's own condition left out.
    assert.deepEqual(asked, [
      ['colour', []],
      ['colour', []],
      ['colour', ['ownerId']],
    ]);
  });

  it('refuses to build a statement naming a column outside the declared ones', async () => {
    const db = createDatabase('sqlite::memory:');
    after(() => db.destroy());
    const statements = createAggregateStatements('widgets', grammar, ['colour', 'price_cents']);
    const query = parseAggregate(grammar, { groupBy: 'madeAt:day' }, user);
    await assert.rejects(() => statements.aggregate(db, [], query), /made_at/);
    await assert.rejects(
      () => statements.facets(db, [{ field: 'x', column: 'secret', operator: 'eq', value: 1 }], ['colour']),
      /secret/,
    );
  });
});
