import { anyTable } from '../../core/db/by-id-statements.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { isUniqueViolation } from '../../core/db/db-errors.ts';
import { inOuterTransactionNow } from '../../core/db/outer-transaction.ts';
import type { AlsoWritten } from './change-writer.ts';
import { tableOf, type RowInsert } from './created-rows.ts';
import { OWN_TRANSACTION, runManyRowsInsert } from './events.statements.ts';
import type { NewEventRow } from './events.table.ts';
import { reserveRowIds } from './events.repository.ts';

/**
 * Writes `rows` by the module's `insert` in `trx`, each row as written in the place of the row given, or
 * undefined where a unique key refused it (the others are written): their ids reserved first (one
 * statement), then every row in one statement (`runManyRowsInsert`), the rows returned matched by id.
 */
export async function insertCreatedRows<Row extends { id: number }, New extends object>(
  trx: Db,
  insert: RowInsert<Row, New>,
  rows: readonly New[],
): Promise<(Row | undefined)[]> {
  if (rows.length === 0) return [];
  const ids = await reserveRowIds(trx, tableOf(trx, insert, rows[0]!), rows.length);
  const full = rows.map((row, i) => ({ ...row, id: ids[i]! }));
  const returned = await runManyRowsInsert(trx, insert, full, true);
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
  const insert = dialectOf(trx) === 'sqlite' ? eventInsert : ownPlaceEventInsert;
  await runManyRowsInsert(
    trx,
    insert,
    datas.map((data) => eventRow(type, data)),
    false,
  );
  await insertAlsoWritten(trx, datas, alsoOf);
}

/** An event's insert as a module's insert of one row (`runManyRowsInsert` compiles it once per list length). */
const eventInsert: RowInsert<unknown, Omit<NewEventRow, 'seq' | 'tx'>> = (qc, row) =>
  anyTable(qc as Db)
    .insertInto('events')
    .values(row);
/** PostgreSQL: the same, each placed at its writer's transaction id, as a single create's. */
const ownPlaceEventInsert: RowInsert<unknown, Omit<NewEventRow, 'seq' | 'tx'>> = (qc, row) =>
  anyTable(qc as Db)
    .insertInto('events')
    .values({ ...row, tx: OWN_TRANSACTION });

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
  for (const [insert, rows] of byInsert) await runManyRowsInsert(trx, insert, rows, false);
  if (rest && left.length > 0) await rest(left);
}
