import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

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
  // Rows come back as arrays and become objects here: node:sqlite's own row objects are slow to
  // build and to read (dictionary mode); these share one shape per statement. Reading 380 user rows
  // and mapping them took 925 µs as objects, 480 µs this way (bench/RESULTS.md).
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
 * for every length of its list, and compiling a builder for each would add a `new Function` to those
 * requests and keep a copy per length. Bounded like the statement cache.
 */
const builders = new Map<string, (values: unknown[]) => Record<string, unknown>>();

function rowBuilderFor(columns: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const key = columns.join('\u0000');
  let builder = builders.get(key);
  if (builder === undefined) {
    builder = rowBuilder(columns);
    remember(builders, key, builder);
  }
  return builder;
}

/**
 * Makes objects of one shape from a statement's value arrays: an object literal with the statement's
 * columns, compiled once per column list (`new Function`, as ajv and fast-json-stringify do for their
 * validators and serializers). Setting the keys one by one from the column list made every row
 * building site megamorphic across statements: 80–100 ns a row against 13–30 (bench/RESULTS.md, session
 * 6). The column names come from the statement's own SQL and are written as JSON string literals.
 */
export function rowBuilder(columns: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  if (new Set(columns).size !== columns.length || columns.includes('__proto__')) {
    // Duplicate names (a join without aliases: the last one wins, as with one assignment after
    // another), or a name a literal would take for the prototype: built key by key.
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) {
        Object.defineProperty(row, columns[i]!, { value: values[i], enumerable: true, writable: true, configurable: true });
      }
      return row;
    };
  }
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
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
