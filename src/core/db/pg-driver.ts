import {
  AbortedTransactionError,
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { createNamedStatements, type NamedStatements } from './pg-named-statements.ts';
import { savepointCommands } from './savepoints.ts';
import {
  ambientOf,
  beginNested,
  commitNested,
  rollbackNested,
  type OuterTransactionDriver,
} from './outer-transaction.ts';

const CACHED_PLAN_CHANGED = '0A000';

/**
 * One pg client as Kysely's connection, running texts under their names (pg-named-statements.ts).
 * The driver tells it when a transaction begins and ends, so it knows whether a failed named statement
 * may be retried: a named statement whose result columns changed under it (a migration run by another
 * instance during a rolling upgrade: "cached plan must not change result type") is retried unnamed
 * outside a transaction; inside one the error stands (the transaction is rolled back, and its caller
 * may retry). Either way the client is destroyed on release, forgetting its statements.
 */
export class PgConnection implements DatabaseConnection {
  readonly client: pg.PoolClient;
  readonly #names: NamedStatements;
  inTransaction = false;
  /** Destroy the client on release instead of returning it to the pool. */
  discard = false;

  constructor(client: pg.PoolClient, names: NamedStatements) {
    this.client = client;
    this.#names = names;
  }

  /** Kysely's entry (which Kysely wraps with its statement log on first use). */
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.execute(query);
  }

  /** The statement itself: the entry of the fast reads (fast-read.ts), which report to the listeners themselves. */
  async execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { command, rowCount, rows } = await this.#run(query.sql, query.parameters as unknown[]);
    // As Kysely's own PostgreSQL connection answers: the command of a commit (ROLLBACK when the
    // transaction had failed), the count of changed rows.
    if (command === 'ROLLBACK' || command === 'COMMIT') return { rows: [{ command } as R] };
    const changes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { numAffectedRows: changes ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  // eslint-disable-next-line require-yield -- the service never streams; Kysely's interface asks for it.
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('Streaming is not supported on this PostgreSQL connection');
  }

  async #run(text: string, values: unknown[]): Promise<pg.QueryResult> {
    const name = this.#names.nameOf(text);
    if (name === undefined) return this.client.query(text, values);
    try {
      return await this.client.query({ name, text, values });
    } catch (error) {
      if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error;
      this.discard = true;
      if (this.inTransaction) throw error;
      return this.client.query(text, values);
    }
  }
}

/**
 * Kysely's driver over a pg pool, with our connections. One connection per pg client, made on its
 * first checkout and handed out again on every later one: Kysely keys its per-connection state by the
 * connection object, and a new one per checkout made it build that state for every statement (garbage
 * promoted under load).
 */
export class PgDriver implements Driver, OuterTransactionDriver {
  readonly #pool: pg.Pool;
  readonly #names: NamedStatements;
  readonly #connections = new WeakMap<pg.PoolClient, PgConnection>();

  constructor(pool: pg.Pool, names = createNamedStatements()) {
    this.#pool = pool;
    this.#names = names;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<PgConnection> {
    // Inside an outer transaction (outer-transaction.ts) every statement runs on its connection.
    const ambient = ambientOf(this);
    if (ambient) return ambient.connection as PgConnection;
    const client = await this.#pool.connect();
    let connection = this.#connections.get(client);
    if (connection === undefined) this.#connections.set(client, (connection = new PgConnection(client, this.#names)));
    return connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (ambientOf(this)?.connection === connection) return;
    const { client, discard } = connection as PgConnection;
    client.release(discard);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (await beginNested(this, connection)) return;
    let text = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      text = 'start transaction';
      if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) text += ` ${settings.accessMode}`;
    }
    await connection.executeQuery(CompiledQuery.raw(text));
    (connection as PgConnection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (await commitNested(this, connection)) return;
    try {
      const { rows } = await connection.executeQuery<{ command?: string }>(CompiledQuery.raw('commit'));
      // PostgreSQL completes COMMIT with a ROLLBACK tag if an earlier statement left the transaction aborted.
      if (rows[0]?.command === 'ROLLBACK') throw new AbortedTransactionError();
    } finally {
      (connection as PgConnection).inTransaction = false;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (await rollbackNested(this, connection)) return;
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } catch (error) {
      (connection as PgConnection).discard = true;
      throw error;
    } finally {
      (connection as PgConnection).inTransaction = false;
    }
  }

  beginOuter = (connection: DatabaseConnection, snapshot: boolean) =>
    this.beginTransaction(connection, snapshot ? { isolationLevel: 'repeatable read', accessMode: 'read only' } : {});
  commitOuter = (connection: DatabaseConnection) => this.commitTransaction(connection);
  rollbackOuter = (connection: DatabaseConnection) => this.rollbackTransaction(connection);

  readonly savepoint = savepointCommands.savepoint;
  readonly rollbackToSavepoint = savepointCommands.rollbackToSavepoint;
  readonly releaseSavepoint = savepointCommands.releaseSavepoint;

  /**
   * Resolves once every connection has closed. pg-pool's `end()` resolves as soon as it has told its
   * clients to end, before their connections close: a database dropped right after (`WITH (FORCE)`, as the
   * tests do) terminated a backend still open, and the half-closed client threw "terminating connection due
   * to administrator command" as an uncaught exception (a CI run at load 8). The pool emits `remove` once a
   * client's connection has ended.
   */
  async destroy(): Promise<void> {
    let open = this.#pool.totalCount;
    const closed = new Promise<void>((resolve) => {
      if (open === 0) return resolve();
      this.#pool.on('remove', () => {
        open -= 1;
        if (open === 0) resolve();
      });
    });
    await this.#pool.end();
    await closed;
  }
}

/** Kysely's PostgreSQL dialect (its adapter, compiler and introspector) on our driver. */
export function pgDialect(driver: PgDriver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}
