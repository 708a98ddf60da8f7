import type { Db } from '../../core/db/database.ts';
import type { RowInsert } from './created-rows.ts';

/**
 * What another module writes with each change's event, in the same transaction (DECISIONS §19: the
 * history module's revisions). Registered once (`onChange`), so the events module imports nothing of it.
 */
export interface ChangeWriter {
  /** In the change's transaction, after its event (`record`, `recordWith`, `recordInsert` on SQLite, `recordEach`'s rest). */
  written(trx: Db, type: string, data: Record<string, unknown>): Promise<void>;
  /**
   * `written` for each of a list's changes of one `type` that `stateRow` hands no row for (a list delete's
   * revisions, which read each item's latest state), in a few statements for the whole list (`recordEach`).
   */
  writtenEach(trx: Db, type: string, datas: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * The row to write for a change whose row is its event's `data` alone (a create, an update), for the
   * outbox to write in a new row's own statement (PostgreSQL `recordInsert`) or with the others of a list
   * (`recordInserts`, `recordEach`); undefined for none, or for one `written` must build (it reads first).
   */
  stateRow(type: string, data: Record<string, unknown>): AlsoWritten | undefined;
}

/**
 * A row another module hands the outbox to write in a new row's own statement (a revision, DECISIONS §19):
 * that module's insert, typed against its own table (`RowInsert`, as a created row's), and its values. The
 * outbox names no table of it. One such insert per process (the statement is compiled once per pair).
 */
export interface AlsoWritten {
  insert: RowInsert<unknown, Record<string, unknown>>;
  row: Record<string, unknown>;
}
