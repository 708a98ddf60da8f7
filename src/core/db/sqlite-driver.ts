import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';
import { savepointCommands } from './savepoints.ts';
import {
  ambientOf,
  beginNested,
  commitNested,
  rollbackNested,
  type OuterTransactionDriver,
} from './outer-transaction.ts';
import { SqliteCompiler } from './sqlite-compiler.ts';

/** The one connection to a node:sqlite database (sqlite-adapter.ts). Statements run synchronously. */
export class SqliteConnection implements DatabaseConnection {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return Promise.resolve(this.execute<R>(query));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The statement itself, as Kysely's own SQLite connection runs it. */
  execute<R>(query: CompiledQuery): QueryResult<R> {
    const statement = this.#db.prepare(query.sql);
    if (statement.reader) return { rows: statement.all(query.parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(query.parameters);
    return {
      insertId: lastInsertRowid != null ? BigInt(lastInsertRowid) : undefined,
      numAffectedRows: changes != null ? BigInt(changes) : undefined,
      rows: [],
    };
  }

  /** A read now, or undefined when the statement is not a read (`execute` runs it). */
  read<R>(query: CompiledQuery): QueryResult<R> | undefined {
    const statement = this.#db.prepare(query.sql);
    return statement.reader ? { rows: statement.all(query.parameters) as R[] } : undefined;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    for (const row of this.#db.prepare(query.sql).iterate(query.parameters)) yield { rows: [row as R] };
  }
}

/**
 * Kysely's driver over the one SQLite connection, which it lends to one caller at a time (a
 * transaction holds it until it ends) and which knows its holder and its waiters: the fast reads run
 * at once only while nobody holds it (fast-read.ts), and metrics report both.
 */
export class SqliteDriver implements Driver, OuterTransactionDriver {
  readonly #db: SqliteDatabase;
  readonly connection: SqliteConnection;
  readonly #waiters: (() => void)[] = [];
  #held = false;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.connection = new SqliteConnection(db);
  }

  get held(): boolean {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<SqliteConnection> {
    // Inside an outer transaction (outer-transaction.ts), which holds the connection, it is lent at once.
    if (ambientOf(this)) return this.connection;
    // Released connections are handed to the first waiter directly: `held` stays true between them.
    if (this.#held) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    else this.#held = true;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    if (ambientOf(this)) return;
    const next = this.#waiters.shift();
    if (next === undefined) this.#held = false;
    else next();
  }

  /**
   * `begin immediate`: the transaction takes the file's write lock when it begins, waiting for it up to
   * the busy timeout. A deferred `begin` took it at the first write, and when another process on the
   * same file (an API process beside a worker, DECISIONS §16) had committed since the transaction's
   * first read, SQLite refused at once (SQLITE_BUSY_SNAPSHOT), past any timeout. In one process, whose
   * one connection runs one transaction at a time, nothing changes.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (await beginNested(this, connection)) return;
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (await commitNested(this, connection)) return;
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (await rollbackNested(this, connection)) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  // A snapshot is a plain (deferred) read transaction: it takes no write lock, and reads one snapshot of the file.
  beginOuter = async (connection: DatabaseConnection, snapshot: boolean) =>
    snapshot ? void (await connection.executeQuery(CompiledQuery.raw('begin'))) : this.beginTransaction(connection);
  commitOuter = (connection: DatabaseConnection) => this.commitTransaction(connection);
  rollbackOuter = (connection: DatabaseConnection) => this.rollbackTransaction(connection);

  readonly savepoint = savepointCommands.savepoint;
  readonly rollbackToSavepoint = savepointCommands.rollbackToSavepoint;
  readonly releaseSavepoint = savepointCommands.releaseSavepoint;

  async destroy(): Promise<void> {
    this.#db.close();
  }
}

/** The one connection is lent by our driver, so Kysely need not serialise acquisitions itself. */
class OwnLockSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** Kysely's SQLite dialect (its introspector, its compiler with one change: sqlite-compiler.ts) on our driver. */
export function sqliteDialect(driver: SqliteDriver): Dialect {
  return {
    createAdapter: () => new OwnLockSqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
}
