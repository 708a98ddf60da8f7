import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresAdapter, type Dialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { QueryListeners, registerObservers, type PoolStats } from './database-observers.ts';
import { registerPgReads, registerSqliteReads } from './fast-read.ts';
import { PgDriver, pgDialect } from './pg-driver.ts';
import { getTypeParser } from './pg-types.ts';
import { registerOuterTransactions } from './outer-transaction.ts';
import { openSqlite } from './sqlite-adapter.ts';
import { SqliteDriver, sqliteDialect } from './sqlite-driver.ts';
import type { Tables } from './tables.ts';

export { observeQueries, poolStatsOf, type PoolStats, type QueryListener } from './database-observers.ts';

/** The query layer every repository receives: the database itself or a transaction of it. */
export type Db = Kysely<Tables>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  poolSize?: number;
  /**
   * PostgreSQL's `statement_timeout` on every connection of the pool (0 or unset: none of the service's own;
   * the role's or the database's applies). SQLite has no statement timeout.
   */
  statementTimeoutMs?: number;
  /** Sees the SQL of every statement run (tests count statements with it). */
  onQuery?: (sql: string) => void;
}

/** Builds the database from a URL: `sqlite:<path>`, `sqlite::memory:` or `postgres://...`. */
export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  const listeners = new QueryListeners();
  if (options.onQuery) listeners.add((sql) => options.onQuery!(sql));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options, listeners);
  return openSqliteDatabase(url.replace(/^sqlite:/, ''), listeners);
}

export function dialectOf(db: { getExecutor(): { adapter: unknown } }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

function openPostgres(url: string, options: DatabaseOptions, listeners: QueryListeners): Db {
  const max = options.poolSize ?? 10;
  // Sent as a startup parameter, so it is each session's default: a statement the timeout cancels fails
  // with 57014 (an answer in the envelope, error-envelope.ts), and `RESET` returns to it after the
  // migrations lift it (migrate.ts). pg sends none for 0.
  const statement_timeout = options.statementTimeoutMs ?? 0;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5000,
    statement_timeout,
    types: { getTypeParser },
  });
  // A client losing its server must not crash the process: idle ones report through the pool,
  // checked-out ones (between two statements) would otherwise emit an unhandled 'error'. The
  // query in flight still fails, and is answered with a 503.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const driver = new PgDriver(pool);
  const db = build(pgDialect(driver), listeners, () => ({
    total: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
    max,
  }));
  registerPgReads(db, driver, listeners);
  registerOuterTransactions(db, driver);
  return db;
}

function openSqliteDatabase(file: string, listeners: QueryListeners): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const driver = new SqliteDriver(openSqlite(file));
  const db = build(sqliteDialect(driver), listeners, () => ({
    total: 1,
    idle: driver.held ? 0 : 1,
    waiting: driver.waiting,
    max: 1,
  }));
  registerSqliteReads(db, driver, listeners);
  registerOuterTransactions(db, driver);
  return db;
}

/** Kysely times each statement once a `log` is set, which it always is here: the listeners see them all. */
function build(dialect: Dialect, listeners: QueryListeners, poolStats: () => PoolStats): Db {
  const log = (event: LogEvent) => listeners.notify(event.query, event.queryDurationMillis, event.level === 'error');
  const db = new Kysely<Tables>({ dialect, log });
  registerObservers(db, listeners, poolStats);
  return db;
}
