import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type LogEvent,
  type PostgresPool,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';
import pg from 'pg';
import { withNamedStatements } from './pg-named-statements.ts';
import { openSqlite } from './sqlite-adapter.ts';
import type { Tables } from './tables.ts';

/** The query layer every repository receives: the database itself or a transaction of it. */
export type Db = Kysely<Tables>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  poolSize?: number;
  /** Sees the SQL of every statement run (tests count statements with it). */
  onQuery?: (sql: string) => void;
}

/**
 * Sees every statement: its SQL, how long it took (Kysely times each statement once a `log` is set,
 * which it always is here), whether it failed, and the values bound. Called synchronously after the statement.
 */
type QueryListener = (sql: string, durationMs: number, failed: boolean, parameters: readonly unknown[]) => void;
const queryListeners = new WeakMap<object, Set<QueryListener>>();

/** Calls `listener` with every statement `db` runs from now on; returns the unsubscribe. */
export function observeQueries(db: Db, listener: QueryListener): () => void {
  const listeners = queryListeners.get(db);
  if (!listeners) throw new Error('This database was not built by createDatabase');
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The connections of a database, read when metrics are scraped. */
export interface PoolStats {
  /** Connections open (PostgreSQL: up to DATABASE_POOL_SIZE; SQLite: its one connection). */
  total: number;
  /** Open and not lent out. */
  idle: number;
  /** Callers waiting for a connection (SQLite: for the one connection, held by a transaction). */
  waiting: number;
  /** The most connections the pool opens. */
  max: number;
}

const poolStats = new WeakMap<object, () => PoolStats>();

/** The pool's figures now (cheap: counters, no statement). */
export function poolStatsOf(db: Db): PoolStats {
  const read = poolStats.get(db);
  if (!read) throw new Error('This database was not built by createDatabase');
  return read();
}

function notify(listeners: Set<QueryListener>, query: CompiledQuery, durationMs: number, failed: boolean): void {
  for (const listener of listeners) listener(query.sql, durationMs, failed, query.parameters);
}

function withQueryLog(
  build: (log: (event: LogEvent) => void) => Db,
  options: DatabaseOptions,
  stats: () => PoolStats,
): { db: Db; listeners: Set<QueryListener> } {
  const listeners = new Set<QueryListener>(options.onQuery ? [(sql) => options.onQuery!(sql)] : []);
  const db = build((event) => notify(listeners, event.query, event.queryDurationMillis, event.level === 'error'));
  queryListeners.set(db, listeners);
  poolStats.set(db, stats);
  return { db, listeners };
}

/**
 * A compiled read run beside Kysely: on SQLite at once (undefined while a transaction holds its one
 * connection: Kysely's path then waits for it), on PostgreSQL on a pooled connection of its own.
 */
type Reader = (query: CompiledQuery) => QueryResult<unknown> | Promise<QueryResult<unknown>> | undefined;
const readers = new WeakMap<object, Reader>();

/**
 * Runs a compiled read statement (a statement cache's) on `db`, as `db.executeQuery` would, with
 * less around it. A transaction (`db` is then a Kysely transaction, not the database) takes Kysely's
 * path, on the transaction's connection. The statement listeners (metrics, tests) see every read alike.
 *
 * SQLite: when nothing holds its one connection, the statement runs synchronously and the result
 * comes back at once. node:sqlite runs statements synchronously anyway, so Kysely's path around it
 * (its connection mutex, the driver's acquire and release, the timing wrapper: about ten promises)
 * only added ~4 µs to a by-id read. Nothing can interleave with a synchronous call, and with the
 * connection free no transaction is open on it, so the read sees what it would have seen through Kysely.
 *
 * PostgreSQL: a connection from the same pool (named statements included), the statement, the
 * release; Kysely's driver layers cost ~5–7 µs of CPU per read (bench/RESULTS.md, session 6).
 */
export function executeRead<R>(db: Db, query: CompiledQuery<R>): QueryResult<R> | Promise<QueryResult<R>> {
  const result = readers.get(db)?.(query) as QueryResult<R> | Promise<QueryResult<R>> | undefined;
  return result !== undefined ? result : db.executeQuery(query);
}

/** The rows of a compiled read (`executeRead`), as a promise. */
export async function readRows(db: Db, query: CompiledQuery): Promise<unknown[]> {
  const result = executeRead(db, query);
  return (result instanceof Promise ? await result : result).rows;
}

function pooledRead(pool: PostgresPool, listeners: Set<QueryListener>): Reader {
  return async (query) => {
    const client = await pool.connect();
    const start = performance.now();
    try {
      const { rows } = (await client.query(query.sql, [...query.parameters])) as { rows: unknown[] };
      notify(listeners, query, performance.now() - start, false);
      return { rows };
    } catch (error) {
      notify(listeners, query, performance.now() - start, true);
      throw error;
    } finally {
      client.release();
    }
  };
}

function readNow(sqlite: SqliteDatabase, dialect: CountingSqliteDialect, listeners: Set<QueryListener>): Reader {
  return (query) => {
    if (dialect.inUse !== 0) return undefined;
    const start = performance.now();
    let rows: unknown[];
    try {
      const statement = sqlite.prepare(query.sql);
      if (!statement.reader) return undefined;
      rows = statement.all(query.parameters);
    } catch (error) {
      notify(listeners, query, performance.now() - start, true);
      throw error;
    }
    notify(listeners, query, performance.now() - start, false);
    return { rows };
  };
}

/**
 * Kysely's SQLite driver lends its one connection through a mutex (a transaction holds it until it
 * ends). This wrapper counts the holder and the waiters, two integers on each acquisition.
 */
class CountingSqliteDialect extends SqliteDialect {
  inUse = 0;
  waiting = 0;

  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = () => {
      this.waiting += 1;
      return acquire().then(
        (connection) => {
          this.waiting -= 1;
          this.inUse += 1;
          return connection;
        },
        (error: unknown) => {
          this.waiting -= 1;
          throw error;
        },
      );
    };
    driver.releaseConnection = (connection: DatabaseConnection) => {
      this.inUse -= 1;
      return release(connection);
    };
    return driver;
  }
}

/** Builds the database from a URL: `sqlite:<path>`, `sqlite::memory:` or `postgres://...`. */
export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      types: { getTypeParser },
    });
    // A client losing its server must not crash the process: idle ones report through the pool,
    // checked-out ones (between two statements) would otherwise emit an unhandled 'error'. The
    // query in flight still fails, and is answered with a 503.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const max = options.poolSize ?? 10;
    const named = withNamedStatements(pool);
    const { db, listeners } = withQueryLog((log) => new Kysely<Tables>({ dialect: new PostgresDialect({ pool: named }), log }), options, () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max,
    }));
    readers.set(db, pooledRead(named, listeners));
    return db;
  }
  const path = url.replace(/^sqlite:/, '');
  const file = path === ':memory:' ? ':memory:' : path;
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = openSqlite(file);
  const dialect = new CountingSqliteDialect({ database: sqlite });
  const { db, listeners } = withQueryLog((log) => new Kysely<Tables>({ dialect, log }), options, () => ({
    total: 1,
    idle: 1 - dialect.inUse,
    waiting: dialect.waiting,
    max: 1,
  }));
  readers.set(db, readNow(sqlite, dialect, listeners));
  return db;
}

export function dialectOf(db: { getExecutor(): { adapter: unknown } }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

const INT8 = 20;
const TIMESTAMPTZ = 1184;

/** Counts come back as numbers and timestamps as the same ISO strings SQLite stores. */
function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8) return Number;
  if (oid === TIMESTAMPTZ) return parseTimestamptz;
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}

/** PostgreSQL's text form of a timestamptz in a UTC session: `2025-01-01 00:00:00.123456+00`. */
const UTC_TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * The ISO string of a timestamptz, milliseconds truncated as `Date` does. The UTC form is rewritten
 * directly: `new Date()` on PostgreSQL's format takes V8's slow legacy parser (about 3 µs a value,
 * ~10% of the CPU of a nested GraphQL query, bench/RESULTS.md). Any other offset goes through Date.
 */
export function parseTimestamptz(value: string): string {
  const match = UTC_TIMESTAMPTZ.exec(value);
  if (!match) return new Date(value).toISOString();
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}
