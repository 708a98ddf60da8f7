import { readRows, type Db } from './database.ts';
import { columnInParam, idListParam, type IdListParam } from './id-list.ts';
import { statementCache } from './statement-cache.ts';

/** Column names as a statement's shape: once each, in one order (the order they are selected in). */
export function canonicalColumns<C extends string>(columns: readonly C[]): C[] {
  return [...new Set(columns)].sort();
}

/**
 * The rows of `table` whose id is one of `ids` (all columns, or `columns`), in no particular order;
 * the SQL of each column list is built once (`statementCache`; on SQLite once per number of ids too)
 * and run with `executeRead`. The GraphQL loaders read authors and posts by id this way, every level
 * of a nested query.
 */
export function rowsByIds<Row>(table: 'users' | 'posts'): (db: Db, ids: readonly number[], columns?: readonly (keyof Row & string)[]) => Promise<Row[]> {
  const statement = statementCache({
    keyOf: (columns: readonly string[] | undefined) => (columns === undefined ? '*' : columns.join()),
    build: (db, columns, params: { ids: IdListParam }) => {
      // Kysely cannot type a query over a table chosen at run time; the caller names the row type.
      const from = db.selectFrom(table as 'users');
      const selected = columns === undefined ? from.selectAll() : from.select(columns as 'id'[]);
      return selected.where(columnInParam(db, 'id', params.ids));
    },
  });
  return async (db, ids, columns) => {
    if (ids.length === 0) return [];
    return (await readRows(db, statement(db, columns === undefined ? undefined : canonicalColumns(columns), { ids: idListParam(db, ids) }))) as Row[];
  };
}
