import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Driver } from 'kysely';
import { savepointCommands } from './savepoints.ts';

// PostgreSQL aborts one side of a deadlock (40P01) or of a serialization conflict (40001); the work
// did nothing, so running it again is safe and is what the caller would do anyway.
const RETRYABLE = new Set(['40P01', '40001']);

export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/**
 * One transaction around several service calls (a batch, a chunk of an import, a write by filter:
 * DECISIONS §18), without a second implementation of any of them. Services own their transactions
 * and open them on the database they were built with; inside `inOuterTransaction` our drivers hand
 * every statement of the calling async context the one connection the outer transaction holds, turn
 * a service's own `begin`/`commit`/`rollback` into a savepoint, its release and a rollback to it, and
 * keep the connection until the outer transaction ends. A service's write that fails therefore undoes
 * only itself (its savepoint), and the caller decides whether the whole goes in.
 */
interface Ambient {
  readonly driver: Driver;
  readonly connection: DatabaseConnection;
  /** The savepoints of the services' transactions open now, innermost last. */
  readonly savepoints: string[];
  next: number;
  /** Run once the outer transaction committed (the outbox's wake-up of its consumers). */
  readonly afterCommit: (() => void)[];
}

const storage = new AsyncLocalStorage<Ambient>();
const drivers = new WeakMap<object, Driver & OuterTransactionDriver>();

/** What our drivers add for an outer transaction: how it begins, commits and rolls back on their dialect. */
export interface OuterTransactionDriver {
  /** `snapshot`: a read-only transaction reading one snapshot throughout (an export). */
  beginOuter(connection: DatabaseConnection, snapshot: boolean): Promise<void>;
  commitOuter(connection: DatabaseConnection): Promise<void>;
  rollbackOuter(connection: DatabaseConnection): Promise<void>;
}

/** Called by database.ts for each database it builds. */
export function registerOuterTransactions(db: object, driver: Driver & OuterTransactionDriver): void {
  drivers.set(db, driver);
}

/** The outer transaction of `driver` open in this async context, if any (the drivers' hooks read it). */
export function ambientOf(driver: Driver): Ambient | undefined {
  const ambient = storage.getStore();
  return ambient?.driver === driver ? ambient : undefined;
}

/** True while the caller runs inside an outer transaction (of any database). */
export function inOuterTransactionNow(): boolean {
  return storage.getStore() !== undefined;
}

/**
 * Runs `fn` after the outer transaction of this context commits, or at once when none is open
 * (a rolled-back outer transaction runs none).
 */
export function afterOuterCommit(fn: () => void): void {
  const ambient = storage.getStore();
  if (ambient) ambient.afterCommit.push(fn);
  else fn();
}

/** A driver's `beginTransaction` inside an outer transaction: a savepoint. Returns false outside one. */
export async function beginNested(driver: Driver, connection: DatabaseConnection): Promise<boolean> {
  const ambient = ambientOf(driver);
  if (!ambient || ambient.connection !== connection) return false;
  const name = `nested_${(ambient.next += 1)}`;
  await savepointCommands.savepoint(connection, name);
  ambient.savepoints.push(name);
  return true;
}

export async function commitNested(driver: Driver, connection: DatabaseConnection): Promise<boolean> {
  const ambient = ambientOf(driver);
  if (!ambient || ambient.connection !== connection) return false;
  const name = ambient.savepoints.pop();
  if (name !== undefined) await savepointCommands.releaseSavepoint(connection, name);
  return true;
}

export async function rollbackNested(driver: Driver, connection: DatabaseConnection): Promise<boolean> {
  const ambient = ambientOf(driver);
  if (!ambient || ambient.connection !== connection) return false;
  const name = ambient.savepoints.pop();
  if (name !== undefined) {
    await savepointCommands.rollbackToSavepoint(connection, name);
    await savepointCommands.releaseSavepoint(connection, name);
  }
  return true;
}

/**
 * Runs `work` with every statement of its async context in one transaction of `db` (see above), and
 * commits it when `work` resolves; rolls all of it back when `work` throws. Retried, as `inTransaction`
 * is, when the database aborted it for a deadlock or a serialization conflict: `work` must be safe to
 * run again (it wrote nothing that stayed). Nested calls join the one open.
 */
export async function inOuterTransaction<T>(
  db: object,
  work: () => Promise<T>,
  options: { snapshot?: boolean } = {},
): Promise<T> {
  const driver = drivers.get(db);
  if (!driver) throw new Error('inOuterTransaction: a database built by createDatabase is needed');
  if (ambientOf(driver)) return work();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await once(driver, work, options.snapshot === true);
    } catch (error) {
      if (attempt >= 4 || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

async function once<T>(driver: Driver & OuterTransactionDriver, work: () => Promise<T>, snapshot: boolean): Promise<T> {
  const connection = await driver.acquireConnection();
  const ambient: Ambient = { driver, connection, savepoints: [], next: 0, afterCommit: [] };
  try {
    await driver.beginOuter(connection, snapshot);
    let result: T;
    try {
      result = await storage.run(ambient, work);
    } catch (error) {
      await driver.rollbackOuter(connection);
      throw error;
    }
    await driver.commitOuter(connection);
    for (const fn of ambient.afterCommit) fn();
    return result;
  } finally {
    await driver.releaseConnection(connection);
  }
}

export const rawStatement = (connection: DatabaseConnection, text: string) =>
  connection.executeQuery(CompiledQuery.raw(text));
