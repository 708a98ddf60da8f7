import type { Db } from '../../core/db/database.ts';
import type { AlsoWritten } from './events.statements.ts';

/**
 * What another module writes with each change's event, in the same transaction (DECISIONS §19: the
 * history module's revisions). Registered once (`onChange`), so the events module imports nothing of it.
 */
export interface ChangeWriter {
  /** In the change's transaction, after its event (`record`, `recordWith`, `recordInsert` on SQLite). */
  written(trx: Db, type: string, data: Record<string, unknown>): Promise<void>;
  /** The row to write in a new row's own statement (PostgreSQL `recordInsert`), or undefined for none. */
  createdRow(type: string, data: Record<string, unknown>): AlsoWritten | undefined;
}
