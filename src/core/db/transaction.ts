import { inOuterTransactionNow, isRetryableTransactionError } from './outer-transaction.ts';
import type { Db } from './database.ts';

export { isRetryableTransactionError };

const ATTEMPTS = 4;

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
      // Inside an outer transaction (outer-transaction.ts) the outer one is retried whole, not this part of it.
      if (attempt >= ATTEMPTS || !isRetryableTransactionError(error) || inOuterTransactionNow()) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
