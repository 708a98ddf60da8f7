import type { Db, DialectName } from '../core/db/database.ts';
import type { SeedProgress } from './seed-progress.ts';

export interface TableSummary {
  table: string;
  rows: number;
  seconds: number;
}

export interface Loader {
  db: Db;
  dialect: DialectName;
  progress: SeedProgress;
}

/** Bound parameters one statement may carry (SQLite's SQLITE_MAX_VARIABLE_NUMBER, PostgreSQL's protocol limit). */
const PARAMETER_LIMIT: Record<DialectName, number> = { sqlite: 32_766, postgres: 65_535 };
/**
 * Measured (docs/SEED.md): SQLite keeps gaining up to its parameter limit; PostgreSQL, which gets
 * one array per column through `unnest`, is fastest near a thousand rows.
 */
const MAX_ROWS_PER_STATEMENT: Record<DialectName, number> = { sqlite: 4_000, postgres: 1_000 };
/** Few commits (each one syncs to disk), yet short enough that a running server is not locked out for long. */
const ROWS_PER_TRANSACTION = 20_000;

/**
 * node:sqlite runs statements synchronously, so a load made only of awaits on settled promises
 * would never let the progress bar's timer fire; one macrotask turn per statement costs nothing.
 */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Rows per INSERT for a table whose row binds `parameters` values. */
export function rowsPerStatement(dialect: DialectName, parameters: number): number {
  return Math.min(MAX_ROWS_PER_STATEMENT[dialect], Math.floor(PARAMETER_LIMIT[dialect] / parameters));
}

/**
 * Inserts `total` generated rows: statements of `rowsPerStatement` rows, several per transaction.
 * `insert` gets the transaction, the generated items and the index of the first one.
 */
/** Statements per transaction for statements of `size` rows. */
export function statementsPerTransaction(size: number): number {
  return Math.max(1, Math.floor(ROWS_PER_TRANSACTION / size));
}

export async function loadTable<Item>(
  loader: Loader,
  table: string,
  total: number,
  parameters: number,
  generate: (index: number) => Item,
  insert: (trx: Db, items: Item[], first: number) => Promise<void>,
): Promise<TableSummary> {
  const started = performance.now();
  const bar = loader.progress.table(table, total);
  const size = rowsPerStatement(loader.dialect, parameters);
  const perTransaction = size * statementsPerTransaction(size);
  for (let start = 0; start < total; start += perTransaction) {
    const end = Math.min(total, start + perTransaction);
    await loader.db.transaction().execute(async (trx) => {
      for (let first = start; first < end; first += size) {
        const items: Item[] = [];
        for (let i = first; i < Math.min(end, first + size); i++) items.push(generate(i));
        await insert(trx, items, first);
        bar.increment(items.length);
        await yieldToEventLoop();
      }
    });
  }
  bar.stop();
  return { table, rows: total, seconds: (performance.now() - started) / 1000 };
}
