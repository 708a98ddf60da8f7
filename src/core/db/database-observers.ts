import type { CompiledQuery } from 'kysely';

/**
 * What a database reports about itself, kept beside it (keyed by the `Db` object): the listeners that
 * see every statement, and the figures of its connections. `createDatabase` registers both; metrics and
 * tests read them.
 */
export type QueryListener = (sql: string, durationMs: number, failed: boolean, parameters: readonly unknown[]) => void;

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

/** One database's listeners (each statement is reported to them once, after it ran). */
export class QueryListeners {
  readonly #listeners = new Set<QueryListener>();

  add(listener: QueryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  notify(query: CompiledQuery, durationMs: number, failed: boolean): void {
    for (const listener of this.#listeners) listener(query.sql, durationMs, failed, query.parameters);
  }
}

interface Observed {
  listeners: QueryListeners;
  poolStats: () => PoolStats;
}

const observed = new WeakMap<object, Observed>();

export function registerObservers(db: object, listeners: QueryListeners, poolStats: () => PoolStats): void {
  observed.set(db, { listeners, poolStats });
}

function observedOf(db: object): Observed {
  const found = observed.get(db);
  if (!found) throw new Error('This database was not built by createDatabase');
  return found;
}

/**
 * Calls `listener` with every statement `db` runs from now on (its SQL, how long it took, whether it
 * failed, the values bound; synchronously after the statement); returns the unsubscribe.
 */
export function observeQueries(db: object, listener: QueryListener): () => void {
  return observedOf(db).listeners.add(listener);
}

/** The pool's figures now (cheap: counters, no statement). */
export function poolStatsOf(db: object): PoolStats {
  return observedOf(db).poolStats();
}
