import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { QueryListeners } from './database-observers.ts';
import type { PgDriver } from './pg-driver.ts';
import type { SqliteDriver } from './sqlite-driver.ts';
import type { Tables } from './tables.ts';

/** The database or a transaction of it (`Db` of database.ts, which builds the readers: named here without the cycle). */
type Db = Kysely<Tables>;

/**
 * A compiled read run on the driver's connection without Kysely's executor around it: on SQLite at
 * once (undefined while a transaction holds its one connection: Kysely's path then waits for it), on
 * PostgreSQL on a connection of its own from the pool.
 */
type Reader = (query: CompiledQuery) => QueryResult<unknown> | Promise<QueryResult<unknown>> | undefined;

const readers = new WeakMap<object, Reader>();

/**
 * The rows of a compiled statement (a `shapedStatement`'s, or a by-id read's): the one way the
 * repositories run the statements they compile, reads and writes alike (a create's `insert ... returning *`,
 * the deliveries' `update ... returning id`). On the database itself it runs on the driver's connection
 * directly (SQLite: a statement that returns no rows goes Kysely's way, which runs it the same); on a
 * transaction (`db` is then a Kysely transaction, not the database) it takes Kysely's path, on the
 * transaction's connection. The statement listeners (metrics, tests) see every statement alike.
 *
 * Why beside Kysely's executor (bench/RESULTS.md, "Changes", 35 and 36): node:sqlite runs statements
 * synchronously, and Kysely's path around it (its executor, the driver's acquire and release, the
 * timing wrapper: about ten promises) cost more than the by-id read itself. Nothing can interleave
 * with a synchronous call, and with the connection free no transaction is open on it, so the statement
 * sees (and, a write, commits) what it would have through Kysely: one statement is its own transaction. On PostgreSQL the same layers cost CPU on every read.
 */
export async function readRows<R>(db: Db, query: CompiledQuery<R>): Promise<R[]> {
  const result = readers.get(db)?.(query) ?? db.executeQuery(query);
  return ((await result) as QueryResult<R>).rows;
}

export function registerSqliteReads(db: Db, driver: SqliteDriver, listeners: QueryListeners): void {
  readers.set(db, (query) => {
    if (driver.held) return undefined;
    const start = performance.now();
    let result: QueryResult<unknown> | undefined;
    try {
      result = driver.connection.read(query);
    } catch (error) {
      listeners.notify(query, performance.now() - start, true);
      throw error;
    }
    // Not a read after all (`readRows` on a write): Kysely runs it.
    if (result !== undefined) listeners.notify(query, performance.now() - start, false);
    return result;
  });
}

export function registerPgReads(db: Db, driver: PgDriver, listeners: QueryListeners): void {
  readers.set(db, async (query) => {
    const connection = await driver.acquireConnection();
    const start = performance.now();
    try {
      const result = await connection.execute(query);
      listeners.notify(query, performance.now() - start, false);
      return result;
    } catch (error) {
      listeners.notify(query, performance.now() - start, true);
      throw error;
    } finally {
      await driver.releaseConnection(connection);
    }
  });
}
