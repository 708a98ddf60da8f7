import { sql } from 'kysely';
import { anyTable, type TableName } from './by-id-statements.ts';
import type { Db } from './database.ts';
import { readRows } from './fast-read.ts';
import { shapedStatement, type BoundParams } from './statement-cache.ts';

/** The values asked of each key column: one is an equality, several an `in` list, none leaves the column out. */
export type CounterKeys<Column extends string> = Partial<Record<Column, readonly (string | number)[]>>;

/**
 * The sum of `n` over the rows of a counters table (a module's `<resource>_counts`, kept
 * exact by its module's triggers) whose key columns hold the values asked: the exact total of a list
 * whose filter the counters can say, read from a handful of rows instead of counting the list's. The
 * table and its key columns are named by the module; each key's values are bound, and each number of
 * values is a statement of its own, compiled once (`shapedStatement`).
 */
export function counterSum<Column extends string>(
  table: TableName,
  columns: readonly Column[],
): (db: Db, keys: CounterKeys<Column>) => Promise<number> {
  const statement = shapedStatement({
    build: (db, _shape: undefined, keys: BoundParams<CounterKeys<string>>) => {
      let query = anyTable(db)
        .selectFrom(table)
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), sql.lit(0)).as('n'));
      for (const column of columns) {
        const values = keys[column];
        if (values === undefined) continue;
        const ref = sql.ref(column);
        query = query.where(
          values.length === 1 ? sql<boolean>`${ref} = ${values[0]}` : sql<boolean>`${ref} in (${sql.join(values)})`,
        );
      }
      return query;
    },
  });
  return async (db, keys) => {
    const params: CounterKeys<string> = {};
    for (const column of columns) params[column] = keys[column];
    const rows = await readRows(db, statement(db, undefined, params));
    return Number(rows[0]?.n ?? 0);
  };
}
