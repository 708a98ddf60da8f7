import { sql, type OrderByItemBuilder, type RawBuilder, type SqlBool } from 'kysely';
import { afterOperator, directionSql, type SortDirection } from '../db/sort-direction.ts';
import type { Bound } from '../db/statement-cache.ts';

/** The order of a queried list's statements and the keyset condition of a cursor (list-sql.ts). */

/** An ordered key of the statement: the request's sort keys, then the id unless the sort names it. */
export type OrderKey = {
  column: string;
  direction: SortDirection;
  nullable: boolean;
};

/**
 * Rows strictly after the cursor's item in the order of `keys` (nulls last in both directions):
 * (k0 after v0) or (k0 = v0 and k1 after v1) or ... The first key also bounds the range on its own
 * (`k0 >= v0`), so an index on it starts the walk at the cursor instead of at the first row.
 * `afterNull` says which of the cursor's values are null (part of the statement's shape); the values
 * themselves are the bound params `k<i>` (each one not null).
 */
export function keysetOf(
  keys: readonly OrderKey[],
  afterNull: readonly boolean[],
  params: Readonly<Record<string, Bound<unknown> | undefined>>,
) {
  // One direction and no nulls: a row-value comparison, which an index on the keys reads as a range
  // starting right after the cursor (PostgreSQL and SQLite both), however many rows share a value.
  if (keys.every((key) => !key.nullable && key.direction === keys[0]!.direction)) {
    const columns = keys.map((key) => sql.ref(key.column));
    const values = keys.map((_, index) => params[`k${index}`]);
    const op = sql.raw(afterOperator(keys[0]!.direction));
    return keys.length === 1
      ? [sql<SqlBool>`${columns[0]} ${op} ${values[0]}`]
      : [sql<SqlBool>`(${sql.join(columns)}) ${op} (${sql.join(values)})`];
  }
  const equal = (key: OrderKey, index: number) =>
    afterNull[index]
      ? sql<SqlBool>`${sql.ref(key.column)} is null`
      : sql<SqlBool>`${sql.ref(key.column)} = ${params[`k${index}`]}`;
  const beyond = (key: OrderKey, index: number): RawBuilder<SqlBool> | undefined => {
    if (afterNull[index]) return undefined; // nulls come last: nothing sorts after a null
    const op = sql.raw(afterOperator(key.direction));
    const strict = sql<SqlBool>`${sql.ref(key.column)} ${op} ${params[`k${index}`]}`;
    return key.nullable ? sql<SqlBool>`(${strict} or ${sql.ref(key.column)} is null)` : strict;
  };
  const alternatives: RawBuilder<SqlBool>[] = [];
  keys.forEach((key, index) => {
    const last = beyond(key, index);
    if (!last) return;
    const prefix = keys.slice(0, index).map(equal);
    alternatives.push(prefix.length === 0 ? last : sql<SqlBool>`(${sql.join([...prefix, last], sql` and `)})`);
  });
  const parts: RawBuilder<SqlBool>[] = [
    alternatives.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`,
  ];
  const first = keys[0]!;
  if (afterNull[0]) parts.push(sql<SqlBool>`${sql.ref(first.column)} is null`);
  else if (!first.nullable) {
    parts.push(sql<SqlBool>`${sql.ref(first.column)} ${sql.raw(afterOperator(first.direction, true))} ${params.k0}`);
  }
  return parts;
}

/**
 * The ORDER BY items of `keys`, as Kysely's `orderBy(expression, modifiers)` takes them: the direction
 * through Kysely's own `asc()`/`desc()` (checked by `directionSql`), never as text. `nulls last` in both
 * directions on both databases (they disagree by default).
 */
export function orderOf(
  keys: readonly OrderKey[],
): [RawBuilder<unknown>, (item: OrderByItemBuilder) => OrderByItemBuilder][] {
  return keys.map((key) => {
    const ascending = directionSql(key.direction) === 'asc';
    return [
      sql.ref(key.column),
      (item) => {
        const ordered = ascending ? item.asc() : item.desc();
        return key.nullable ? ordered.nullsLast() : ordered;
      },
    ];
  });
}
