import { sql, type CompiledQuery } from 'kysely';
import { anyTable, type TableName } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';
import { statementCache } from '../../core/db/statement-cache.ts';

/**
 * The inserts every create runs (its row, its event), compiled once per table and column list
 * (statement-cache.ts) instead of built and compiled by Kysely on every write, which took ~25-30 µs of
 * CPU a statement (bench/RESULTS.md, session 24). They take rows whose values are all bound as they are;
 * `bindsAsIs` tells, and events.repository.ts builds any other row with Kysely as before.
 */

/** Every value of `row` is a plain value to bind (no SQL expression, array or object for Kysely to build). */
export function bindsAsIs(row: Record<string, unknown>): boolean {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'function' || (typeof value === 'object' && value !== null)) return false;
  }
  return true;
}

/** The writing transaction's id (PostgreSQL): a fresh resource's place in the feed (events.repository.ts). */
export const OWN_TRANSACTION = sql<number>`pg_current_xact_id()::text::bigint`;

/** The name of the `*.created` event's insert inside its row's statement (`rowWithEventInsert`). */
export const CREATED_EVENT_STEP = 'created_event';

/** `insert into <table> (...) values (...) returning *`. */
export const rowInsert: (db: Db, table: TableName, row: Record<string, unknown>) => CompiledQuery<unknown> =
  statementCache({
    build: (db, table: TableName, row: Record<string, unknown>) =>
      anyTable(db).insertInto(table).values(row).returningAll(),
    keyOf: (table) => table,
  });

/** An event's insert; with `ownPlace` (PostgreSQL, a fresh resource) its `tx` is its writer's id. */
export const eventInsert: (db: Db, ownPlace: boolean, event: Record<string, unknown>) => CompiledQuery<unknown> =
  statementCache({
    build: (db, ownPlace: boolean, event: Record<string, unknown>) =>
      anyTable(db)
        .insertInto('events')
        .values(ownPlace ? { ...event, tx: OWN_TRANSACTION } : event),
    keyOf: (ownPlace) => (ownPlace ? 'own place' : 'plain'),
  });

/** Prefixes the event's columns among one statement's params, apart from the row's. */
const EVENT_PARAM = 'event.';

/**
 * PostgreSQL: the row and its `*.created` event in one statement (`with created_event as (insert into
 * events ...) insert into <table> ... returning *`), the event placed at its writer's transaction id.
 */
export function rowWithEventInsert(
  db: Db,
  table: TableName,
  row: Record<string, unknown>,
  event: Record<string, unknown>,
): CompiledQuery<unknown> {
  const params: Record<string, unknown> = { ...row };
  for (const key in event) params[EVENT_PARAM + key] = event[key];
  return rowWithEventStatement(db, table, params);
}

const rowWithEventStatement = statementCache({
  build: (db, table: TableName, params: Record<string, unknown>) => {
    const row: Record<string, unknown> = {};
    const event: Record<string, unknown> = { tx: OWN_TRANSACTION };
    for (const key in params) {
      if (key.startsWith(EVENT_PARAM)) event[key.slice(EVENT_PARAM.length)] = params[key];
      else row[key] = params[key];
    }
    return anyTable(db)
      .with(CREATED_EVENT_STEP, (db) => db.insertInto('events').values(event))
      .insertInto(table)
      .values(row)
      .returningAll();
  },
  keyOf: (table) => table,
});
