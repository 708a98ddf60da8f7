import type { AggregateQuery, GroupKey, Measure } from './aggregate-parse.ts';

/**
 * An aggregate's answer as the API presents it (DECISIONS §14): its groups, keys and measures read from
 * the statements' rows (aggregate-sql.ts), money summed in integer cents and converted to currency units,
 * averages divided here, half-even.
 */

export type KeyValue = string | number | null;

/** One group of an aggregate's answer: money in currency units, averages rounded half-even. */
export interface AggregateGroup {
  key: Record<string, KeyValue>;
  count: number;
  sum?: Record<string, number>;
  avg?: Record<string, number | null>;
  min?: Record<string, number | null>;
  max?: Record<string, number | null>;
}

export interface AggregateResult {
  data: AggregateGroup[];
  /** How many groups the conditions make (`data` holds the first `limit` of them). */
  groups: number;
}

export interface FacetValue {
  value: KeyValue;
  count: number;
}

/** `numerator / denominator` rounded to the nearest integer, a half to the even one (banker's rounding). */
export function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = n / d;
  const twice = (n - quotient * d) * 2n;
  const rounded = twice > d || (twice === d && quotient % 2n === 1n) ? quotient + 1n : quotient;
  return negative ? -rounded : rounded;
}

/** A database's integer (a number, a bigint, or PostgreSQL's numeric/int8 text) as a bigint. */
const bigintOf = (value: unknown): bigint => (typeof value === 'bigint' ? value : BigInt(String(value ?? 0)));

export function keyValueOf(group: GroupKey, value: unknown): KeyValue {
  if (value === null || value === undefined) return null;
  return group.type === 'integer' ? Number(value) : String(value);
}

function present(measure: Exclude<Measure, { fn: 'count' }>, value: unknown, count: unknown): number | null {
  const money = measure.fromCents;
  switch (measure.fn) {
    case 'sum':
      return money ? money(Number(bigintOf(value))) : Number(bigintOf(value));
    case 'avg': {
      const n = bigintOf(count);
      if (n === 0n) return null;
      // Cents to the nearest cent; plain integers to the nearest hundredth: exact, then half-even.
      return money
        ? money(Number(divideHalfEven(bigintOf(value), n)))
        : Number(divideHalfEven(bigintOf(value) * 100n, n)) / 100;
    }
    case 'min':
    case 'max':
      if (value === null || value === undefined) return null;
      return money ? money(Number(value)) : Number(value);
  }
}

export function groupOf(row: Record<string, unknown>, query: AggregateQuery): AggregateGroup {
  const key: Record<string, KeyValue> = {};
  query.groups.forEach((group, index) => (key[group.name] = keyValueOf(group, row[`g${index}`])));
  const answer: AggregateGroup = { key, count: Number(row.n) };
  query.measures.forEach((measure, index) => {
    if (measure.fn === 'count') return;
    const value = present(measure, row[`m${index}`], row[`c${index}`]);
    const bucket = (answer[measure.fn] ??= {}) as Record<string, number | null>;
    bucket[measure.field] = value;
  });
  return answer;
}
