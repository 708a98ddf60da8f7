import { CompiledQuery, type Kysely } from 'kysely';
import { dialectOf, type Db, type DialectName } from './database.ts';
import { columnInParam, idListParam, type IdListParam } from './id-list.ts';
import { readRows } from './fast-read.ts';
import { shapedStatement, type BoundParams } from './statement-cache.ts';
import type { Tables } from './tables.ts';

/** A table a module added to `Tables`, named by that module. */
export type TableName = keyof Tables & string;

/**
 * The query builder over a table named at run time: Kysely cannot type such a query, so the module
 * that names the table also names the row type it reads.
 */
export function anyTable(db: Db): Kysely<Record<string, Record<string, unknown>>> {
  return db as unknown as Kysely<Record<string, Record<string, unknown>>>;
}

/** Column names as a statement's shape: once each, in one order (the order they are selected in). */
export function canonicalColumns<C extends string>(columns: readonly C[]): C[] {
  return [...new Set(columns)].sort();
}

/**
 * The read of one row of `table` by its `id` (all columns, or `columns`), to run with `readRows`. Its
 * SQL is built once per dialect: the by-id reads are the hottest statements (a REST or GraphQL read
 * of one resource, the rights of a caller), and building and compiling the same query on every call
 * cost about as much CPU as pg's own work for the statement.
 */
export function rowByIdStatement<Row>(
  table: TableName,
  columns?: readonly (keyof Row & string)[],
): (db: Db, id: number) => CompiledQuery<Row> {
  const build = (db: Db, id: number) => {
    const from = anyTable(db).selectFrom(table);
    const selected = columns ? from.select(columns) : from.selectAll();
    return selected.where('id', '=', id).compile();
  };
  // Its one parameter is the id: the SQL is all there is to keep, once per dialect.
  const texts: Partial<Record<DialectName, string>> = {};
  return (db, id) => {
    const dialect = dialectOf(db);
    let text = texts[dialect];
    if (text === undefined) {
      const compiled = build(db, id);
      if (compiled.parameters.length !== 1 || compiled.parameters[0] !== id)
        throw new Error(`rowByIdStatement(${table}): the id must be the only parameter`);
      text = texts[dialect] = compiled.sql;
    }
    return CompiledQuery.raw(text, [id]) as CompiledQuery<Row>;
  };
}

/**
 * The read of the rows of `table` whose id is one of `ids` (all columns, or `columns`; in no particular
 * order), to run with `readRows`; ids must not be empty. The SQL of each column list is built once
 * (`shapedStatement`; on SQLite once per number of ids too). The GraphQL loaders read authors and posts
 * by id this way, every level of a nested query.
 */
export function rowsByIdsStatement<Row>(
  table: TableName,
): (db: Db, ids: readonly number[], columns?: readonly (keyof Row & string)[]) => CompiledQuery<Row> {
  const statement = shapedStatement({
    build: (db, columns: readonly string[] | undefined, params: BoundParams<{ ids: IdListParam }>) => {
      const from = anyTable(db).selectFrom(table);
      const selected = columns === undefined ? from.selectAll() : from.select(columns);
      return selected.where(columnInParam(db, 'id', params.ids));
    },
  });
  return (db, ids, columns) =>
    statement(db, columns === undefined ? undefined : canonicalColumns<string>(columns), {
      ids: idListParam(db, ids),
    }) as CompiledQuery<Row>;
}

/**
 * The one row of `table` with this id (all columns, or `columns`), undefined when there is none: the
 * by-id read a repository exports, compiled once (`rowByIdStatement`) and run with `readRows`.
 */
export function rowByIdReader<Row>(
  table: TableName,
  columns?: readonly (keyof Row & string)[],
): (db: Db, id: number) => Promise<Row | undefined> {
  const statement = rowByIdStatement<Row>(table, columns);
  return async (db, id) => (await readRows(db, statement(db, id)))[0];
}

/**
 * The rows of `table` whose id is one of `ids` (all columns, or `columns`: the rows' other properties
 * are then absent), in no particular order, missing ids left out; no statement for no ids.
 */
export function rowsByIdsReader<Row>(
  table: TableName,
): (db: Db, ids: readonly number[], columns?: readonly (keyof Row & string)[]) => Promise<Row[]> {
  const statement = rowsByIdsStatement<Row>(table);
  return (db, ids, columns) => (ids.length === 0 ? Promise.resolve([]) : readRows(db, statement(db, ids, columns)));
}
