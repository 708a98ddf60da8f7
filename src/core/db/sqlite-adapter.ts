import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { rowBuilder, type RowOf } from './sqlite-rows.ts';

/**
 * Adapts the built-in `node:sqlite` driver to the interface Kysely's SqliteDialect expects
 * (the shape of better-sqlite3). Prepared statements are cached by SQL text: Kysely prepares
 * on every execution and the queries of a running service are few and repeated.
 */
const STATEMENT_CACHE_SIZE = 500;

export function openSqlite(path: string): SqliteDatabase {
  const db = new DatabaseSync(path, { timeout: 5000 });
  // WAL lets readers proceed during a write; synchronous=FULL makes every acknowledged commit durable.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;');
  const cache = new Map<string, SqliteStatement>();

  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) return cached;
      const statement = wrap(db.prepare(sql));
      remember(cache, sql, statement);
      return statement;
    },
  };
}

function wrap(statement: StatementSync): SqliteStatement {
  const columns = statement.columns().map((column) => column.name);
  if (columns.length === 0) {
    return {
      reader: false,
      all: (parameters) => statement.all(...bind(parameters)),
      run: (parameters) => statement.run(...bind(parameters)),
      iterate: (parameters) => statement.iterate(...bind(parameters)),
    };
  }
  // Rows come back as arrays and become objects here (sqlite-rows.ts).
  statement.setReturnArrays(true);
  const toRow = rowBuilderFor(columns);
  return {
    reader: true,
    all: (parameters) => (statement.all(...bind(parameters)) as unknown as unknown[][]).map(toRow),
    run: (parameters) => statement.run(...bind(parameters)),
    *iterate(parameters) {
      for (const values of statement.iterate(...bind(parameters))) yield toRow(values as unknown as unknown[]);
    },
  };
}

/**
 * Statements of one column list share one builder: a batched read's `in (?, ?, …)` is a new statement
 * for every length of its list. Bounded like the statement cache.
 */
const builders = new Map<string, RowOf>();

function rowBuilderFor(columns: readonly string[]): RowOf {
  const key = columns.join('\u0000');
  let builder = builders.get(key);
  if (builder === undefined) {
    builder = rowBuilder(columns);
    remember(builders, key, builder);
  }
  return builder;
}

/** Keeps at most STATEMENT_CACHE_SIZE entries, the oldest out first (a Map keeps insertion order). */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= STATEMENT_CACHE_SIZE) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

function bind(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    return value as SQLInputValue;
  });
}
