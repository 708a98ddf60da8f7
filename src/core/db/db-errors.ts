/** Recognises constraint violations from either driver, so services can turn races into 409s. */

interface DriverError {
  code?: string;
  errcode?: number;
  message?: string;
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as DriverError;
  return e?.code === '23505' || e?.errcode === 2067 || e?.errcode === 1555;
}

export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as DriverError;
  // SQLite reports an ON DELETE RESTRICT refusal as SQLITE_CONSTRAINT_TRIGGER (1811), not 787.
  return e?.code === '23503' || e?.errcode === 787 || (e?.errcode === 1811 && /FOREIGN KEY/i.test(e.message ?? ''));
}
