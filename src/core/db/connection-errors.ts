/**
 * Recognises "the database is not there" (refused, reset, shut down, pool timeout, SQLite busy past
 * its timeout), which the HTTP layer answers with a fast 503 rather than a 500.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
// PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections; class 08 = connection exceptions.
const PG_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
// SQLite's SQLITE_BUSY, and its extended codes (the low byte is the primary one: BUSY_RECOVERY 261,
// BUSY_SNAPSHOT 517, BUSY_TIMEOUT 773), which node:sqlite reports as `errcode`.
const SQLITE_BUSY = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PG_CODES.has(e.code) || e.code.startsWith('08')))
    return true;
  if (typeof e.errcode === 'number' && (e.errcode & 0xff) === SQLITE_BUSY) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  // "not queryable": pg refuses a statement (e.g. the ROLLBACK of a transaction) on a client whose
  // connection already broke; it was a 500 during an outage (test/reliability/database-outage-load.test.ts).
  return /Connection terminated|timeout exceeded when trying to connect|Cannot use a pool after calling end|database is closed|is not queryable/i.test(
    message,
  );
}

// PostgreSQL: query_canceled, raised by `statement_timeout` (DATABASE_STATEMENT_TIMEOUT_MS) and by a cancel
// request; lock_not_available, raised by a `lock_timeout` an operator sets on the role (docs/OPERATIONS.md §2).
// The service takes no lock with NOWAIT, so 55P03 means only that.
const PG_STOPPED_STATEMENT = new Set(['57014', '55P03']);

/**
 * A statement the database stopped before it finished. Not "the database is unavailable": the
 * database answered, and readiness and the outage handling must not flip because one statement ran
 * long (it waited on a lock, or a plan went wrong). The HTTP layer still answers 503 with
 * Retry-After: the cause is usually transient (a lock held by a migration or a long transaction),
 * and the request is not the client's fault.
 */
export function isStatementCancelled(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PG_STOPPED_STATEMENT.has(code);
}
