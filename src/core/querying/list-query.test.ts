import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ASCENDING } from '../db/sort-direction.ts';
import { AppError } from '../errors/app-error.ts';
import { decodeCursor, encodeCursor } from './list-cursor.ts';
import { DEFAULT_LIST_SETTINGS, defineListGrammar } from './list-grammar.ts';
import { filterParameters, listQueryParameters } from './list-query-schema.ts';
import { checkValue, listRequestOf, parseListQuery } from './list-query-parse.ts';
import { orderKeysOf } from './list-sql.ts';

const grammar = defineListGrammar({
  resource: 'widgets',
  tieBreak: 'asc',
  seedParameters: ['kind'],
  fields: {
    kind: { column: 'kind', type: 'enum', values: ['a', 'b'] },
    size: { column: 'size_cm', type: 'integer', nullable: true },
    label: { column: 'label', type: 'text' },
    secret: { column: 'secret', type: 'text', adminOnly: true },
    madeAt: { column: 'made_at', type: 'timestamp' },
    ok: { column: 'ok', type: 'boolean' },
  },
});
const user = { admin: false, ...DEFAULT_LIST_SETTINGS };
const parse = (parameters: Record<string, unknown>, asker = user) =>
  parseListQuery(grammar, listRequestOf(parameters), asker);

/** The details of the 422 `work` throws. */
function refusal(work: () => unknown): { status: number; fields: string[] } {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return { status: error.status, fields: (error.details ?? []).map((d) => d.field) };
  }
  assert.fail('expected an error');
}

describe('list grammar', () => {
  it('declares field and field[op] parameters from the definition, leaving a seed parameter’s equality to its module', () => {
    const names = Object.keys(filterParameters(grammar));
    assert.ok(!names.includes('kind'));
    for (const name of ['kind[in]', 'size', 'size[gte]', 'size[null]', 'label[contains]', 'madeAt[lt]', 'ok'])
      assert.ok(names.includes(name), name);
    for (const name of ['kind[gt]', 'size[contains]', 'label[null]', 'ok[gt]']) assert.ok(!names.includes(name), name);
    assert.ok('sort' in listQueryParameters(grammar) && 'cursor' in listQueryParameters(grammar));
  });

  it('refuses at definition an enum without values and contains on a non-text field', () => {
    assert.throws(() =>
      defineListGrammar({ resource: 'x', tieBreak: 'asc', fields: { e: { column: 'e', type: 'enum' } } }),
    );
    assert.throws(() =>
      defineListGrammar({
        resource: 'x',
        tieBreak: 'asc',
        fields: { n: { column: 'n', type: 'integer', operators: ['contains'] } },
      }),
    );
  });

  it('reads conditions with their columns and typed values, ignoring plain parameters it does not name', () => {
    const query = parse({
      'size[gte]': '3',
      kind: 'a',
      'madeAt[lt]': '2024-01-01T01:00:00+01:00',
      ok: 'true',
      page: 2,
    });
    assert.deepEqual(
      query.conditions.map((c) => [c.column, c.operator, c.value]),
      [
        ['size_cm', 'gte', 3],
        ['kind', 'eq', 'a'],
        ['made_at', 'lt', '2024-01-01T00:00:00.000Z'],
        ['ok', 'eq', true],
      ],
    );
    assert.deepEqual(parse({ 'size[in]': '1, 2,2' }).conditions[0]!.value, [1, 2]);
  });

  it('answers 422 naming every wrong parameter at once, and 403 for an admin-only field', () => {
    const { status, fields } = refusal(() =>
      parse({
        'size[gt]': 'x',
        'nope[eq]': 1,
        'size[like]': 1,
        'size[contains]': 'a',
        'label[]': 'a',
        'ok[in]': 'true',
      }),
    );
    assert.equal(status, 422);
    assert.deepEqual(fields.sort(), ['label[]', 'nope[eq]', 'ok[in]', 'size[contains]', 'size[gt]', 'size[like]']);
    assert.equal(refusal(() => parse({ 'secret[contains]': 'x' })).status, 403);
    assert.equal(refusal(() => parse({ sort: '-secret' })).status, 403);
    assert.equal(parse({ 'secret[contains]': 'x' }, { ...user, admin: true }).conditions.length, 1);
  });

  it('checks each value by its type', () => {
    const rule = (type: 'integer' | 'number' | 'timestamp' | 'boolean' | 'text') => ({ column: 'c', type });
    assert.equal(checkValue(rule('integer'), '-12', 'p'), -12);
    for (const bad of ['1.5', '1e3', '', '99999999999', ' 1'])
      assert.throws(() => checkValue(rule('integer'), bad, 'p'), /Request validation/, bad);
    assert.equal(checkValue(rule('number'), '1.25', 'p'), 1.25);
    assert.throws(() => checkValue(rule('number'), 'Infinity', 'p'));
    assert.throws(() => checkValue(rule('timestamp'), '2024-01-01', 'p'));
    assert.throws(() => checkValue(rule('timestamp'), '2024-13-01T00:00:00Z', 'p'));
    assert.throws(() => checkValue(rule('boolean'), '1', 'p'));
    assert.throws(() => checkValue(rule('text'), 'x'.repeat(255), 'p'));
  });

  it('reads sorts with their directions, the seed’s order for unsigned fields, and refuses unknown or repeated ones', () => {
    const seedList = { ...grammar, orderParameter: true };
    const query = parseListQuery(seedList, listRequestOf({ sort: '-size,label', order: 'desc' }), user);
    assert.deepEqual(
      query.sort.map((k) => [k.column, k.direction, k.nullable]),
      [
        ['size_cm', 'desc', true],
        ['label', 'desc', false],
      ],
    );
    assert.deepEqual(refusal(() => parse({ sort: 'size,-size' })).fields, ['sort']);
    assert.deepEqual(refusal(() => parse({ sort: 'colour' })).fields, ['sort']);
    assert.deepEqual(refusal(() => parse({ count: 'all' })).fields, ['count']);
  });

  it('fingerprints the filters and sort whatever their order, and tells other ones apart', () => {
    const a = parse({ 'size[gte]': 1, kind: 'a', sort: 'label' }).fingerprint;
    assert.equal(parse({ sort: 'label', kind: 'a', 'size[gte]': 1 }).fingerprint, a);
    assert.notEqual(parse({ 'size[gte]': 2, kind: 'a', sort: 'label' }).fingerprint, a);
    assert.notEqual(parse({ 'size[gte]': 1, kind: 'a', sort: '-label' }).fingerprint, a);
    const scoped = (id: number) => parseListQuery(grammar, listRequestOf({}, { parent_id: id }), user).fingerprint;
    assert.notEqual(scoped(1), scoped(2));
  });

  it('orders by the sort keys then the id, and stops at the id when the sort names it', () => {
    const keys = (sort: string) =>
      orderKeysOf(parse({ sort }).sort, 'id', ASCENDING).map((k) => `${k.column} ${k.direction}`);
    assert.deepEqual(keys('-size'), ['size_cm desc', 'id asc']);
    const byId = defineListGrammar({
      resource: 'w',
      tieBreak: 'asc',
      fields: { id: { column: 'id', type: 'integer' } },
    });
    const sort = parseListQuery(byId, listRequestOf({ sort: '-id' }), user).sort;
    assert.deepEqual(orderKeysOf(sort, 'id', ASCENDING), [{ column: 'id', direction: 'desc', nullable: false }]);
  });
});

describe('list cursor', () => {
  const kinds = [
    { type: 'integer', nullable: true },
    { type: 'integer', nullable: false },
  ] as const;

  it('round-trips a position for the same fingerprint', () => {
    const cursor = encodeCursor('fp', { values: [null, 7], offset: 40 });
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(cursor, 'fp', kinds), { values: [null, 7], offset: 40 });
  });

  it('refuses another fingerprint, other key types, a null where none may be, and text that is no cursor', () => {
    const forged = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      encodeCursor('other', { values: [1, 7], offset: 0 }),
      forged({ f: 'fp', v: ['1', 7], o: 0 }),
      forged({ f: 'fp', v: [1, null], o: 0 }),
      forged({ f: 'fp', v: [1], o: 0 }),
      forged({ f: 'fp', v: [1, 7], o: -1 }),
      forged({ f: 'fp', v: [1, 7] }),
      'not a cursor',
      '',
    ]) {
      assert.deepEqual(refusal(() => decodeCursor(cursor, 'fp', kinds)).fields, ['cursor'], cursor);
    }
  });
});
