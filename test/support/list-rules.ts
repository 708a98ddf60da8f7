import assert from 'node:assert/strict';
import {
  OPERATORS,
  operatorsOf,
  type FieldRule,
  type ListGrammar,
  type Operator,
} from '../../src/core/querying/list-grammar.ts';

/**
 * DECISIONS §12's rules checked from a list's own grammar (src/modules/<resource>/<resource>.query.ts),
 * so that a field or operator added there is checked too: every operator of every field against what
 * it means, computed here from the whole list (`probesOf`), the 422 naming the parameter for every
 * operator a field does not take and for an ill-typed value (`refusalsOf`), and the rules of a page
 * list's `count` and `cursor` (`checkPageRules`). The suites of the lists call them per version and
 * per database; GraphQL's suites turn the same probes into `filter` inputs.
 */

type Json = Record<string, unknown>;

/** One filter of one field and what it keeps of the whole list. */
export interface Probe {
  field: string;
  operator: Operator;
  /** One value, a list (`in`), or a boolean (`null`). */
  value: string | number | boolean | (string | number)[];
  /** The keys of the whole list's items it keeps, in the list's order. */
  expected: (number | string)[];
}

export interface ProbeSource<T> {
  grammar: ListGrammar;
  /** The whole list, unfiltered, in its default order. */
  whole: readonly T[];
  key(item: T): number | string;
  /** The item's values of a field (several for a field read in several columns: a post's `search`). */
  valuesOf?(item: T, field: string): unknown[];
  /** Fields left out (another check covers them). */
  skip?: readonly string[];
}

const compare = (a: unknown, b: unknown) =>
  typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;

const holds: Record<Operator, (v: unknown, x: Probe['value']) => boolean> = {
  eq: (v, x) => v !== null && compare(v, x) === 0,
  ne: (v, x) => v === null || compare(v, x) !== 0,
  gt: (v, x) => v !== null && compare(v, x) > 0,
  gte: (v, x) => v !== null && compare(v, x) >= 0,
  lt: (v, x) => v !== null && compare(v, x) < 0,
  lte: (v, x) => v !== null && compare(v, x) <= 0,
  in: (v, x) => v !== null && (x as unknown[]).some((item) => compare(v, item) === 0),
  contains: (v, x) => typeof v === 'string' && v.toLowerCase().includes(String(x).toLowerCase()),
  null: (v, x) => (v === null) === x,
};

/** Swaps the case of each letter: a `contains` probe written so matches case-insensitively only. */
const swapCase = (text: string) =>
  [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

/**
 * A probe per operator of every field: ordered operators at a value the list holds (so `gte` keeps one
 * value more than `gt`), `in` two values, `contains` three letters of a value in swapped case, `null`
 * both ways. Fails when the data cannot tell an operator from its neighbour.
 */
export function probesOf<T>(source: ProbeSource<T>): Probe[] {
  const valuesOf = source.valuesOf ?? ((item: T, field: string) => [(item as Json)[field] ?? null]);
  const probes: Probe[] = [];
  for (const [field, rule] of Object.entries<FieldRule>(source.grammar.fields)) {
    if (source.skip?.includes(field)) continue;
    const present = [...new Set(source.whole.flatMap((item) => valuesOf(item, field)))].filter((v) => v !== null);
    present.sort(compare);
    assert.ok(present.length >= 2, `${field}: the data need two values at least`);
    const middle = present[Math.floor(present.length / 2)] as string | number | boolean;
    for (const operator of operatorsOf(rule)) {
      let value: Probe['value'] = middle;
      if (operator === 'in') value = [present[0] as string | number, middle as string | number];
      if (operator === 'contains') {
        const text = String(present.find((v) => String(v).length >= 5) ?? middle);
        value = swapCase(text.slice(1, 4));
      }
      const values = operator === 'null' ? [true, false] : [value];
      for (const v of values) {
        const keep = (item: T) => valuesOf(item, field).some((x) => holds[operator](x ?? null, v));
        probes.push({ field, operator, value: v, expected: source.whole.filter(keep).map(source.key) });
      }
    }
    const kept = (operator: Operator) => probes.find((p) => p.field === field && p.operator === operator)?.expected;
    if (kept('gte')) assert.notDeepEqual(kept('gte'), kept('gt'), `${field}: gte and gt must differ on these data`);
    if (kept('lte')) assert.notDeepEqual(kept('lte'), kept('lt'), `${field}: lte and lt must differ on these data`);
    if (kept('eq')) assert.ok(kept('eq')!.length > 0 && kept('eq')!.length < source.whole.length, `${field}: eq`);
    if (kept('contains')) assert.ok(kept('contains')!.length > 0, `${field}: contains`);
  }
  return probes;
}

/** A probe as a query string's `field[op]=value`. */
export function queryOf(probe: Pick<Probe, 'field' | 'operator' | 'value'>): string {
  const value = Array.isArray(probe.value) ? probe.value.map(String).join(',') : String(probe.value);
  return `${probe.field}[${probe.operator}]=${encodeURIComponent(value)}`;
}

/** A value of the field's type that is not one: each must be a 422 naming the parameter. */
const ILL_TYPED: Record<FieldRule['type'], string> = {
  integer: 'abc',
  number: 'ten',
  timestamp: 'yesterday',
  boolean: 'maybe',
  enum: 'no-such-value',
  text: '',
};

/**
 * Parameters a list must refuse with a 422 naming them: each operator a field does not take, an
 * ill-typed value for each field (an empty `contains` for text), an unknown field and an unknown operator.
 */
export function refusalsOf(grammar: ListGrammar, skip: readonly string[] = []): string[] {
  const queries: string[] = ['noSuchField[eq]=1'];
  for (const [field, rule] of Object.entries<FieldRule>(grammar.fields)) {
    if (skip.includes(field)) continue;
    const taken = operatorsOf(rule);
    queries.push(`${field}[like]=1`);
    for (const operator of OPERATORS) if (!taken.includes(operator)) queries.push(`${field}[${operator}]=1`);
    const operator = rule.type === 'text' ? (taken.includes('contains') ? 'contains' : undefined) : taken[0];
    if (operator) queries.push(`${field}[${operator}]=${ILL_TYPED[rule.type]}`);
  }
  return queries;
}

/** The parameter a refusal's query names (`age[gt]=abc` → `age[gt]`). */
export const parameterOf = (query: string) => query.slice(0, query.indexOf('='));

/**
 * Each probe alone, then each with the next probe of another field (two filters AND): `keysOf(query)`,
 * the keys of the list's items with that query, must be what the probes expect.
 */
export async function checkProbes(
  probes: readonly Probe[],
  keysOf: (query: string) => Promise<readonly unknown[]>,
): Promise<void> {
  for (const probe of probes) assert.deepEqual(await keysOf(queryOf(probe)), probe.expected, queryOf(probe));
  for (const [index, one] of probes.entries()) {
    const other = probes.slice(index + 1).find((p) => p.field !== one.field);
    if (!other) continue;
    const query = `${queryOf(one)}&${queryOf(other)}`;
    assert.deepEqual(
      await keysOf(query),
      one.expected.filter((k) => other.expected.includes(k)),
      query,
    );
  }
}

/** Each query is a 422 `VALIDATION_ERROR` whose details name its parameter (`sort` for a sort). */
export async function checkRefusals(
  queries: readonly string[],
  get: (query: string) => Promise<{ status: number; body: Json; text: string }>,
): Promise<void> {
  for (const query of queries) {
    const res = await get(query);
    assert.equal(res.status, 422, `${query}: ${res.text}`);
    assert.equal((res.body.error as Json).code, 'VALIDATION_ERROR', query);
    const fields = ((res.body.error as Json).details as { field: string }[]).map((d) => d.field);
    assert.ok(fields.includes(query.startsWith('sort=') ? 'sort' : parameterOf(query)), `${query}: ${fields}`);
  }
}

export interface PageList {
  /** Any answer to GET the list with `query`. */
  get(query: string): Promise<{ status: number; body: Json }>;
  /** The page's `pagination` (GET /posts carries it only with `count`). */
  paginationOf?(body: Json): Json;
  /** The sort of the list that a cursor will not fit (another order). */
  otherSort: string;
  /** A filter that keeps more than two items, and another that keeps other items. */
  filter: string;
  otherFilter: string;
}

/**
 * `count=none` leaves out `total` and `totalPages` and still tells `hasNext`; `count=estimated` below
 * COUNT_EXACT_LIMIT is exact and unflagged; `nextCursor` is a string while items follow and null on the
 * last page; a cursor sent with other filters or another sort is a 422 naming `cursor`.
 */
export async function checkPageRules(list: PageList): Promise<void> {
  const pagination = list.paginationOf ?? ((body: Json) => body.pagination as Json);
  const ok = async (query: string) => {
    const res = await list.get(query);
    assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const total = pagination(await ok(`count=exact&limit=2&${list.filter}`)).total as number;
  assert.ok(total > 2, `${list.filter} keeps more than two items`);
  const none = pagination(await ok(`count=none&limit=2&${list.filter}`));
  assert.ok(!('total' in none) && !('totalPages' in none), JSON.stringify(none));
  assert.equal(none.hasNext, true);
  assert.equal(typeof none.nextCursor, 'string');
  const lastNone = pagination(await ok(`count=none&limit=${total}&${list.filter}`));
  assert.deepEqual([lastNone.hasNext, lastNone.nextCursor], [false, null]);
  const estimated = pagination(await ok(`count=estimated&limit=2&${list.filter}`));
  assert.deepEqual([estimated.total, estimated.totalEstimated], [total, undefined]);
  // Walked by cursor (GET /posts has no page), every page but the last has a cursor, the last null.
  let seen = 0;
  for (let next: unknown = undefined, pages = 0; ; pages += 1) {
    assert.ok(pages <= total, 'the walk ends');
    const page = await ok(`count=exact&limit=2&${list.filter}${next ? `&cursor=${String(next)}` : ''}`);
    seen += (page.data as unknown[]).length;
    const at = pagination(page);
    assert.equal(at.total, total);
    assert.equal(at.hasNext, at.nextCursor !== null);
    if (at.nextCursor === null) break;
    assert.equal(typeof at.nextCursor, 'string');
    next = at.nextCursor;
  }
  assert.equal(seen, total);
  const cursor = none.nextCursor as string;
  assert.ok((await list.get(`count=none&limit=2&${list.filter}&cursor=${cursor}`)).status === 200);
  for (const query of [
    `limit=2&${list.otherFilter}&cursor=${cursor}`,
    `limit=2&${list.filter}&${list.otherSort}&cursor=${cursor}`,
    `limit=2&cursor=${cursor}`,
  ]) {
    const res = await list.get(query);
    assert.equal(res.status, 422, `${query}: ${JSON.stringify(res.body)}`);
    const details = (res.body.error as { details: { field: string }[] }).details;
    assert.deepEqual(
      details.map((d) => d.field),
      ['cursor'],
      query,
    );
  }
}

export interface SortSource<T> {
  grammar: ListGrammar;
  whole: readonly T[];
  /** The column that breaks ties (`id`; a like's `userId`), as the item names it. */
  key(item: T): number;
  /** GET the list's keys with `sort=...` (every item). */
  keysSortedBy(sort: string): Promise<number[]>;
}

/**
 * `sort` by every sortable field in both directions, and by two fields in opposite directions: the
 * items in that order, nulls last both ways, ties by the key (ascending, or in the first field's
 * direction where the grammar's `tieBreak` follows it).
 */
export async function checkSorts<T>(source: SortSource<T>): Promise<void> {
  const sortable = Object.entries<FieldRule>(source.grammar.fields).filter(([, rule]) => rule.sortable !== false);
  const sorts = sortable.flatMap(([field]) => [field, `-${field}`]);
  if (sortable.length >= 2) sorts.push(`${sortable[1]![0]},-${sortable[0]![0]}`);
  for (const sort of sorts) {
    const keys = sort.split(',').map((part) => ({ field: part.replace(/^-/, ''), desc: part.startsWith('-') }));
    const tieDesc = source.grammar.tieBreak === 'follow' && keys[0]!.desc;
    const expected = [...source.whole].sort((a, b) => {
      for (const { field, desc } of keys) {
        const [x, y] = [(a as Json)[field] ?? null, (b as Json)[field] ?? null];
        if (x === null || y === null) {
          if (x !== y) return x === null ? 1 : -1;
          continue;
        }
        const order = compare(x, y);
        if (order !== 0) return desc ? -order : order;
      }
      return tieDesc ? source.key(b) - source.key(a) : source.key(a) - source.key(b);
    });
    assert.deepEqual(await source.keysSortedBy(sort), expected.map(source.key), `sort=${sort}`);
  }
}
