import { sql, type Compilable, type CompiledQuery, type ExpressionBuilder, type QueryCreator } from 'kysely';
import { anyTable } from '../../core/db/by-id-statements.ts';
import type { Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { shapedStatement, type BoundParams } from '../../core/db/statement-cache.ts';
import { manyRowsInsert, SELECTED_FROM_WRITER_KEY, type RowInsert, type RowInsertQuery } from './created-rows.ts';
import type { AlsoWritten } from './change-writer.ts';
import type { FeedPosition } from './event.ts';
import type { EventRow } from './events.table.ts';
import { TAKE_WRITER_KEY, WRITER_KEY_STEP } from './feed-horizon.ts';
import { feedQuery } from './feed-order.ts';

/**
 * The events module's compiled statements (statement-cache.ts): the inserts every create runs (its
 * row, by the module's own insert, and its event) and the consumers' read of the feed, compiled once
 * per module insert and column list instead of built and compiled by Kysely on every call, a visible
 * share of a write's CPU. The inserts take
 * rows whose values are all bound as they are; `bindsAsIs` tells, and events.repository.ts builds any
 * other row with Kysely.
 */

/** Every value of `row` is a plain value to bind (no SQL expression, array or object for Kysely to build). */
export function bindsAsIs(row: object): boolean {
  for (const key in row) {
    const value = (row as Record<string, unknown>)[key];
    if (typeof value === 'function' || (typeof value === 'object' && value !== null)) return false;
  }
  return true;
}

/** The writing transaction's id (PostgreSQL): a fresh resource's place in the feed (events.repository.ts). */
export const OWN_TRANSACTION = sql<number>`pg_current_xact_id()::text::bigint`;

/** The name of the `*.created` event's insert inside its row's statement (`runRowWithEventInsert`). */
export const CREATED_EVENT_STEP = 'created_event';

/** The rows one statement returned, expecting one. */
function firstRow<Row>(rows: readonly unknown[]): Row {
  if (rows.length !== 1) throw new Error(`an insert returned ${rows.length} rows, not one`);
  return rows[0] as Row;
}

/**
 * One compiled statement per module insert: the insert is a function, not data a shape may hold, so each
 * gets a cache of its own, whose shapes are the column lists its rows bind (the params' names).
 */
function perInsert<Params extends Record<string, unknown>, Row>(
  build: (db: Db, insert: AnyRowInsert, params: BoundParams<Params>) => Compilable<Row>,
): (db: Db, insert: AnyRowInsert, params: Params) => CompiledQuery<Row> {
  const statements = new WeakMap<AnyRowInsert, (db: Db, shape: null, params: Params) => CompiledQuery<Row>>();
  return (db, insert, params) => {
    let statement = statements.get(insert);
    if (statement === undefined) {
      statement = shapedStatement({
        build: (target: Db, _shape: null, bound: BoundParams<Params>) => build(target, insert, bound),
      });
      statements.set(insert, statement);
    }
    return statement(db, null, params);
  };
}

/** The module's insert of `row` (`RowInsert`), in `db` (the caller's transaction or not), returning the row. */
export async function runRowInsert<Row, New extends object>(
  db: Db,
  insert: RowInsert<Row, New>,
  row: New,
): Promise<Row> {
  return firstRow(await readRows(db, rowInsert(db, insert as AnyRowInsert, row as Record<string, unknown>)));
}

/**
 * The module's insert of many rows in one statement (`manyRowsInsert`; with `skipTaken`, a row a unique key
 * refuses is skipped), in `db`, returning the rows written in no particular order. Rows whose values are all
 * bound as they are (the same columns in each) run as one compiled statement per insert, column list, row
 * count and `skipTaken`, each column's values one array param: Kysely built and compiled an insert per row
 * before, more CPU than the database's own work for an import's chunk. At most `MAX_ROWS_BOUND` values
 * a statement (SQLite's limit is 32,766), so a longer list is written a statement per slice.
 */
export async function runManyRowsInsert<Row, New extends object>(
  db: Db,
  insert: RowInsert<Row, New>,
  rows: readonly New[],
  skipTaken: boolean,
): Promise<Row[]> {
  const columns = Object.keys(rows[0]!);
  const perStatement = Math.max(1, Math.floor(MAX_ROWS_BOUND / Math.max(1, columns.length)));
  if (rows.length > perStatement) {
    const written: Row[] = [];
    for (let from = 0; from < rows.length; from += perStatement)
      written.push(...(await runManyRowsInsert(db, insert, rows.slice(from, from + perStatement), skipTaken)));
    return written;
  }
  if (!rows.every((row) => bindsAsEachOther(row, columns)))
    return (await db.executeQuery(manyRowsInsert(db, insert, rows, skipTaken).compile())).rows;
  const params: Record<string, unknown[]> = {};
  for (const column of columns) params[column] = rows.map((row) => (row as Record<string, unknown>)[column]);
  return readRows(db, manyRowsStatement(db, insert as AnyRowInsert, skipTaken, params)) as Promise<Row[]>;
}

const MAX_ROWS_BOUND = 30_000;

/** `row` names exactly `columns`, each a defined value bound as it is. */
function bindsAsEachOther(row: object, columns: readonly string[]): boolean {
  const values = row as Record<string, unknown>;
  let count = 0;
  for (const key in values) {
    const value = values[key];
    if (value === undefined || typeof value === 'function' || (typeof value === 'object' && value !== null))
      return false;
    count += 1;
  }
  return count === columns.length && columns.every((column) => column in values);
}

/** Per module insert, its many-rows statements: a shape is `skipTaken`, the key each column's row count. */
const manyRowsStatements = new WeakMap<
  AnyRowInsert,
  (db: Db, skipTaken: boolean, params: Record<string, unknown[]>) => CompiledQuery<unknown>
>();

function manyRowsStatement(db: Db, insert: AnyRowInsert, skipTaken: boolean, params: Record<string, unknown[]>) {
  let statement = manyRowsStatements.get(insert);
  if (statement === undefined) {
    statement = shapedStatement({
      build: (target: Db, skip: boolean, bound: BoundParams<Record<string, unknown[]>>) => {
        const names = Object.keys(bound);
        const count = bound[names[0]!]!.length;
        const rows = Array.from({ length: count }, (_, i) =>
          Object.fromEntries(names.map((name) => [name, bound[name]![i]])),
        );
        return manyRowsInsert(target, insert, rows, skip);
      },
      // A list's length is part of a statement's key: the common lengths (an import's chunk, a batch's) are
      // kept, any other is built on its call.
      maxShapes: 8,
    });
    manyRowsStatements.set(insert, statement);
  }
  return statement(db, skipTaken, params);
}

/** A module's insert as the caches hold it: its row is only ever params to bind. */
type AnyRowInsert = RowInsert<unknown, Record<string, unknown>>;

// The row's values reach the module's insert bound, as expressions its `values(row)` places.
const rowInsert = perInsert((db, insert, row: BoundParams<Record<string, unknown>>) => insert(db, row));

/** An event's insert in `trx`; with `ownPlace` (PostgreSQL, a fresh resource) its `tx` is its writer's id. */
export async function runEventInsert(trx: Db, ownPlace: boolean, event: Record<string, unknown>): Promise<void> {
  await readRows(trx, eventInsert(trx, ownPlace, event));
}

const eventInsert = shapedStatement({
  build: (db: Db, ownPlace: boolean, event: BoundParams<Record<string, unknown>>) =>
    anyTable(db)
      .insertInto('events')
      .values(ownPlace ? { ...event, tx: OWN_TRANSACTION } : event),
});

/** Prefixes the event's columns among one statement's params, apart from the row's. */
const EVENT_PARAM = 'event.';
/** Prefixes the columns of the row written with them (`also.<column>`). */
const ALSO_PARAM = 'also.';
/** The name of that row's insert inside the statement. */
const ALSO_STEP = 'also_written';

/**
 * PostgreSQL: the row (the module's insert) and its `*.created` event in one statement, the event placed
 * at its writer's transaction id, both taking the writer key first (feed-horizon.ts):
 * `with writer_key as (select pg_advisory_xact_lock_shared(...)), created_event as (insert into events
 * ... select ... from writer_key) insert into <the module's table> ... select ... from writer_key
 * returning *`. Both inserts select their one row from the key's step, so the key is held before
 * either writes a row (and before the transaction has an id). Compiled once per module insert.
 */
export async function runRowWithEventInsert<Row, New extends object>(
  db: Db,
  insert: RowInsert<Row, New>,
  row: New,
  event: Record<string, unknown>,
  also?: AlsoWritten,
): Promise<Row> {
  const params: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const key in event) params[EVENT_PARAM + key] = event[key];
  if (!also) return firstRow(await readRows(db, rowWithEventStatement(db, insert as AnyRowInsert, params)));
  for (const key in also.row) params[ALSO_PARAM + key] = also.row[key];
  let statement = withAlsoStatements.get(also.insert);
  if (statement === undefined) {
    statement = rowWithEventStatementOf(also.insert);
    withAlsoStatements.set(also.insert, statement);
  }
  return firstRow(await readRows(db, statement(db, insert as AnyRowInsert, params)));
}

/**
 * The statement `runRowWithEventInsert` runs, built by Kysely: the outbox's steps, then the module's
 * insert built on them, its values selected from the writer key's step (`SELECTED_FROM_WRITER_KEY`).
 * events.repository.ts runs it so for a row whose values are not all bound as they are.
 */
export function rowWithEventQuery<Row, New>(
  db: Db,
  insert: RowInsert<Row, New>,
  row: New,
  event: Record<string, unknown>,
  also?: AlsoWritten,
): RowInsertQuery<Row> {
  let steps = anyTable(db)
    .with(WRITER_KEY_STEP, (qc) => qc.selectNoFrom(TAKE_WRITER_KEY.as('taken')))
    .with(CREATED_EVENT_STEP, (qc) =>
      qc
        .insertInto('events')
        .columns([...Object.keys(event), 'tx'])
        .expression(afterWriterKey({ ...event, tx: OWN_TRANSACTION })),
    );
  // A row another module hands the outbox to write with the change (a revision, DECISIONS §19): one more step.
  // Its values selected from the writer key's step too: written only once the key is held.
  if (also)
    steps = steps.with(
      ALSO_STEP,
      (qc) =>
        also.insert(qc as unknown as QueryCreator<Tables>, also.row).withPlugin(SELECTED_FROM_WRITER_KEY) as never,
    ) as unknown as typeof steps;
  // The steps are more tables beside the database's: the module's insert names only its own.
  return insert(steps as unknown as QueryCreator<Tables>, row).withPlugin(SELECTED_FROM_WRITER_KEY);
}

/** The one row of `values` selected from the writer key's step: written only once the key is held. */
const afterWriterKey =
  (values: Record<string, unknown>) => (eb: ExpressionBuilder<Record<string, Record<string, unknown>>, never>) =>
    eb.selectFrom(WRITER_KEY_STEP).select(
      Object.keys(values).map((column) => {
        const value = values[column];
        // A value is bound; an expression (or its factory, as Kysely's `values` takes) is written as it is.
        return sql`${typeof value === 'function' ? (value as (eb: unknown) => unknown)(eb) : value}`.as(column);
      }),
    );

/** The statement of a new row and its event (with `alsoInsert`'s row, when given), compiled once per module insert. */
const rowWithEventStatementOf = (alsoInsert?: AlsoWritten['insert']) =>
  perInsert((db, insert, params: BoundParams<Record<string, unknown>>) => {
    const row: Record<string, unknown> = {};
    const event: Record<string, unknown> = {};
    const alsoRow: Record<string, unknown> = {};
    for (const key in params) {
      if (key.startsWith(EVENT_PARAM)) event[key.slice(EVENT_PARAM.length)] = params[key];
      else if (key.startsWith(ALSO_PARAM)) alsoRow[key.slice(ALSO_PARAM.length)] = params[key];
      else row[key] = params[key];
    }
    return rowWithEventQuery(db, insert, row, event, alsoInsert && { insert: alsoInsert, row: alsoRow });
  });
const rowWithEventStatement = rowWithEventStatementOf();
/** Per handed insert (one per process: the revisions'), its own statements. */
const withAlsoStatements = new WeakMap<AlsoWritten['insert'], ReturnType<typeof rowWithEventStatementOf>>();

/**
 * The consumers' read of the feed (no type filter) every turn: the events after `(tx, seq)` (none: from
 * the start), in feed order, at most `limit`; on PostgreSQL only those below the horizon.
 */
export function readFeedPage(db: Db, after: FeedPosition | undefined, limit: number): Promise<EventRow[]> {
  return readRows(db, feedPage(db, undefined, { tx: after?.tx, seq: after?.seq, limit })) as Promise<EventRow[]>;
}

const feedPage = shapedStatement({
  build: (
    db: Db,
    _shape: undefined,
    p: BoundParams<{ tx: number | undefined; seq: number | undefined; limit: number }>,
  ) => feedQuery(db, p.seq === undefined ? undefined : { tx: p.tx!, seq: p.seq }, p.limit),
});
