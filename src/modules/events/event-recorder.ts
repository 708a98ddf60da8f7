import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import type { RowInsert } from './created-rows.ts';
import type { Rewrite, StoredValues } from './stored-copies.ts';
import { insertCreatedRow } from './events.repository.ts';
import { insertCreatedRows } from './created-rows-many.ts';
import { createOutbox } from './outbox.ts';

/**
 * How a service records its events: `record(trx, type, value)` in the change's own transaction, so the
 * event commits or rolls back with it (DECISIONS §10). `M` maps each type the service emits to the
 * domain value its data is built from (`{ 'user.created': User, ... }`); the module descriptor builds
 * the recorder with the presenter that turns that value into the admin's v2 view, so services never
 * import REST code.
 */
export interface EventRecorder<M> {
  /**
   * Runs `work` in a transaction its events are recorded in (`record` refuses any other): the outbox's
   * (outbox.ts), which tells the consumers once it committed with an event. Retried on a deadlock or a
   * serialization conflict, as `inTransaction`: `work` touches the database only through `trx`.
   */
  transaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T>;
  /** Records the event of `value` in `trx`, a transaction of `transaction`; throws in any other. */
  record<K extends keyof M & string>(trx: Db, type: K, value: M[K]): Promise<void>;
  /**
   * `record` for each of `values`, each of a resource of its own (a list update: a write by filter): the
   * events in one statement, placed as `record` places each, and what is written with each (revisions) in
   * one more. One value is `record`.
   */
  recordEach<K extends keyof M & string>(trx: Db, type: K, values: readonly M[K][]): Promise<void>;
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
   * Writes `row` by the module's own `insert` (its repository's, typed against its table) with its
   * `*.created` event, and returns the row as written. `row` holds every column but the id (the type
   * asks for all of them), so that the event's data can be built before the write: on PostgreSQL the id
   * is taken from the table's sequence, then the row and its event are one statement (two round trips,
   * where a transaction takes four); SQLite, which has no round trips, writes both in a transaction.
   * Given a transaction (the outbox's), both are written in it.
   */
  /**
   * Erasure (DECISIONS §19), in `trx`: every stored event that may hold the person's values, and every copy
   * another module keeps of one (webhook payloads), rewritten by `rewrite` where they do.
   */
  scrubStored(trx: Db, values: StoredValues, rewrite: Rewrite): Promise<void>;
  recordInsert<R extends { id: number }, N extends object, K extends keyof M & string>(
    db: Db,
    type: K,
    insert: RowInsert<R, N>,
    row: NoInfer<Omit<R, 'id'> & N>,
    valueOf: (row: R) => M[K],
  ): Promise<R>;
  /**
   * `recordInsert` for many rows (a list create: an import's chunk, a batch's creates), in one transaction
   * (the caller's outer one when open): the rows in one statement, their events in one, and what is written
   * with each event (revisions) in one. A row a unique key refuses is not written and has no event: its
   * place in the answer is undefined, and the others are written. One row outside any transaction is
   * `recordInsert`'s one statement.
   */
  recordInserts<R extends { id: number }, N extends object, K extends keyof M & string>(
    db: Db,
    type: K,
    insert: RowInsert<R, N>,
    rows: readonly NoInfer<Omit<R, 'id'> & N>[],
    valueOf: (row: R) => M[K],
  ): Promise<(R | undefined)[]>;
}

/** What builds each type's `data`: the presenter of the admin's `GET /api/v2/...` view. */
export type EventViews<M> = { [K in keyof M]: (value: M[K]) => Record<string, unknown> };

/**
 * For services built outside the app (unit tests): records nothing, runs the writes alone, and refuses
 * a `record` outside its `transaction` as the app's recorder does.
 */
export function noEvents<M>(): EventRecorder<M> {
  const outbox = createOutbox({ writerKey: false });
  return {
    transaction: outbox.transaction,
    async scrubStored() {},
    async record(trx) {
      outbox.recordIn(trx);
    },
    async recordEach(trx, _type, values) {
      if (values.length > 0) outbox.recordIn(trx);
    },
    recordWith: (db, _type, write) => outbox.transaction(db, write),
    recordInsert: (db, _type, insert, row) => insertCreatedRow(db, insert, row),
    recordInserts: (db, _type, insert, rows) => outbox.transaction(db, (trx) => insertCreatedRows(trx, insert, rows)),
  };
}

/** The prefix `data`'s `_links` carry: the newest API version's. */
export const EVENT_LINK_PREFIX = '/api/v2';

/** Whom `data` is presented to: an administrator (every field and action link, as `EventViews` says). */
export const EVENT_VIEWER: Principal = { userId: 0, role: 'admin' };
