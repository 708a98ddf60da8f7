import type { Db } from './database.ts';

// PostgreSQL aborts one side of a deadlock (40P01) or of a serialization conflict (40001); the work
// did nothing, so running it again is safe and is what the caller would do anyway.
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 4;

export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/**
 * Runs `work` in a transaction, retrying it (with a short random back-off) when the database
 * aborted it for a deadlock or a serialization conflict. `work` must only touch the database
 * through `trx`, so a retry repeats all of it.
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
