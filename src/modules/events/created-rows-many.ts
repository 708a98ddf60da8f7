import {
  InsertQueryNode,
  OnConflictNode,
  ValuesNode,
  type Compilable,
  type KyselyPlugin,
  type QueryCreator,
  type ValuesItemNode,
} from 'kysely';
import { anyTable } from '../../core/db/by-id-statements.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { isUniqueViolation } from '../../core/db/db-errors.ts';
import { inOuterTransactionNow } from '../../core/db/outer-transaction.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { AlsoWritten } from './change-writer.ts';
import { insertOfOneRow, tableOf, type RowInsert } from './created-rows.ts';
import { OWN_TRANSACTION } from './events.statements.ts';
import type { NewEventRow } from './events.table.ts';
import { reserveRowIds } from './events.repository.ts';

/**
 * Many new rows in one statement, by a module's insert of one row (`RowInsert`, its repository's own): the
 * `values` of each row's insert joined into one list (every row names the same columns). With `skipTaken`,
 * `on conflict do nothing`: a row a unique key refuses is neither written nor returned, the others are.
 */
export function manyRowsInsert<Row, New>(
  qc: QueryCreator<Tables>,
  insert: RowInsert<Row, New>,
  rows: readonly New[],
  skipTaken: boolean,
): Compilable<Row> {
  const first = insertOfOneRow(insert(qc, rows[0]!).toOperationNode());
  const columns = (first.columns ?? []).map((column) => column.column.name).join();
  const lists: ValuesItemNode[] = rows.map((row) => {
    const node = insertOfOneRow(insert(qc, row).toOperationNode());
    if ((node.columns ?? []).map((column) => column.column.name).join() !== columns)
      throw new Error('rows written in one statement must name the same columns');
    return node.values.values[0]!;
  });
  const joined: KyselyPlugin = {
    transformQuery: ({ node }) =>
      InsertQueryNode.cloneWith(insertOfOneRow(node), {
        values: ValuesNode.create(lists),
        ...(skipTaken ? { onConflict: OnConflictNode.cloneWith(OnConflictNode.create(), { doNothing: true }) } : {}),
      }),
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return insert(qc, rows[0]!).withPlugin(joined);
}

/**
 * Writes `rows` by the module's `insert` in `trx`, each row as written in the place of the row given, or
 * undefined where a unique key refused it (the others are written). PostgreSQL: their ids taken from the
 * table's sequence first (one statement), then every row in one statement. SQLite (no round trips): one
 * statement a row.
 */
export async function insertCreatedRows<Row extends { id: number }, New extends object>(
  trx: Db,
  insert: RowInsert<Row, New>,
  rows: readonly New[],
): Promise<(Row | undefined)[]> {
  if (rows.length === 0) return [];
  if (dialectOf(trx) === 'sqlite') {
    const written: (Row | undefined)[] = [];
    for (const row of rows)
      written.push((await trx.executeQuery(manyRowsInsert(trx, insert, [row], true).compile())).rows[0]);
    return written;
  }
  const ids = await reserveRowIds(trx, tableOf(trx, insert, rows[0]!), rows.length);
  const full = rows.map((row, i) => ({ ...row, id: ids[i]! }));
  const { rows: returned } = await trx.executeQuery(manyRowsInsert(trx, insert, full, true).compile());
  const byId = new Map(returned.map((row) => [Number(row.id), row]));
  return full.map((row) => byId.get(row.id));
}

/** One row outside any transaction (a single create): `recordInsert`'s one statement writes it. */
export const alone = (writer: Db, rows: readonly unknown[]) =>
  rows.length === 1 && !writer.isTransaction && !inOuterTransactionNow();

/** A write a unique key refused: undefined (not written); any other failure as it was. */
export function unlessUniqueViolation(error: unknown): undefined {
  if (isUniqueViolation(error)) return undefined;
  throw error;
}

/**
 * The `*.created` events (`type`) of the rows `insertCreatedRows` wrote (`datas`: each one's event data;
 * `eventRow`: its event's row; `alsoOf`: the row another module writes with it, a revision), in one
 * statement, and those rows in one more. Each new resource's event is placed at its writer's transaction id
 * (PostgreSQL), as a single create's.
 */
export async function insertCreatedEvents<D>(
  trx: Db,
  type: string,
  datas: readonly D[],
  eventRow: (type: string, data: D) => Omit<NewEventRow, 'seq' | 'tx'>,
  alsoOf: (data: D) => AlsoWritten | undefined,
): Promise<void> {
  if (datas.length === 0) return;
  const sqlite = dialectOf(trx) === 'sqlite';
  await anyTable(trx)
    .insertInto('events')
    .values(datas.map((data) => (sqlite ? eventRow(type, data) : { ...eventRow(type, data), tx: OWN_TRANSACTION })))
    .execute();
  await insertAlsoWritten(trx, datas, alsoOf);
}

/**
 * What another module writes with each of a list's events (revisions, `ChangeWriter`): the rows it hands
 * (`alsoOf`) in one statement per insert handed (one in practice: the revisions'); the changes it hands
 * none for are left to `rest`, all at once (a list delete's revisions, which read each item's latest state).
 */
export async function insertAlsoWritten<D>(
  trx: Db,
  datas: readonly D[],
  alsoOf: (data: D) => AlsoWritten | undefined,
  rest?: (datas: readonly D[]) => Promise<void>,
): Promise<void> {
  const byInsert = new Map<AlsoWritten['insert'], Record<string, unknown>[]>();
  const left: D[] = [];
  for (const data of datas) {
    const also = alsoOf(data);
    if (!also) {
      left.push(data);
      continue;
    }
    const rows = byInsert.get(also.insert);
    if (rows) rows.push(also.row);
    else byInsert.set(also.insert, [also.row]);
  }
  for (const [insert, rows] of byInsert) await trx.executeQuery(manyRowsInsert(trx, insert, rows, false).compile());
  if (rest && left.length > 0) await rest(left);
}
