import type { TableName } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';
import { insertRow } from './events.repository.ts';

/**
 * How a service records its events: `record(trx, type, value)` in the change's own transaction, so the
 * event commits or rolls back with it (DECISIONS §10). `M` maps each type the service emits to the
 * domain value its data is built from (`{ 'user.created': User, ... }`); the module descriptor builds
 * the recorder with the presenter that turns that value into the admin's v2 view, so services never
 * import REST code.
 */
export interface EventRecorder<M> {
  record<K extends keyof M & string>(trx: Db, type: K, value: M[K]): Promise<void>;
  /**
   * Runs `write` in a transaction of its own, recording the event of its result; a result of
   * undefined, null or false (nothing changed) records none. For writes that were one statement.
   */
  recordWith<T, K extends keyof M & string>(
    db: Db,
    type: K,
    write: (trx: Db) => Promise<T>,
    valueOf: (result: NonNullable<T>) => M[K],
  ): Promise<T>;
  /**
   * Writes `row` as a new row of `table` with its `*.created` event, and returns the row as written.
   * `row` holds every column but the id (the type asks for all of them), so that the event's data can be
   * built before the write: on PostgreSQL the id is taken from the table's sequence, then the row and its
   * event are one statement (two round trips, where a transaction takes four); SQLite, which has no round
   * trips, writes both in a transaction.
   */
  recordInsert<R extends { id: number }, K extends keyof M & string>(
    db: Db,
    type: K,
    table: TableName,
    row: Omit<R, 'id'>,
    valueOf: (row: R) => M[K],
  ): Promise<R>;
}

/** What builds each type's `data`: the presenter of the admin's `GET /api/v2/...` view. */
export type EventViews<M> = { [K in keyof M]: (value: M[K]) => Record<string, unknown> };

/** For services built outside the app (unit tests): records nothing, runs the writes alone. */
export function noEvents<M>(): EventRecorder<M> {
  return {
    async record() {},
    recordWith: (db, _type, write) => db.transaction().execute(write),
    recordInsert: (db, _type, table, row) => insertRow(db, table, row),
  };
}

/** The prefix `data`'s `_links` carry: the newest API version's. */
export const EVENT_LINK_PREFIX = '/api/v2';
