import { ASCENDING } from '../../core/db/sort-direction.ts';
import { rowByIdReader, rowsByIdsReader } from '../../core/db/by-id-statements.ts';
import { counterSum } from '../../core/db/counter-sums.ts';
import type { QueryCreator } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { NewUserRow, UserRow, UserRowUpdate } from './users.table.ts';
import type { PageWindow } from '../../core/pagination.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { Condition } from '../../core/querying/list-grammar.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf, orderKeysOf } from '../../core/querying/list-sql.ts';
import { USER_QUERY } from './users.query.ts';

export const findUserById = rowByIdReader<UserRow>('users');

/** The caller's current rights (core/access/rights.ts): a primary-key read of three columns. */
export const findUserRights = rowByIdReader<Pick<UserRow, 'role' | 'status' | 'erased_at'>>('users', [
  'role',
  'status',
  'erased_at',
]);

/** With `columns`, only those are read (the rows' other properties are absent); in no particular order. */
export const findUsersByIds = rowsByIdsReader<UserRow>('users');

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

const userList = createListStatements<UserRow>('users', [...listColumnsOf([USER_QUERY], 'id'), 'erased_at']);

/** Erased users (tombstones, DECISIONS §19) are in no list: every list of users carries this condition. */
const NOT_ERASED: Condition = { field: 'erased', column: 'erased_at', operator: 'null', value: true };
const notErased = (query: ListQuery): ListQuery => ({ ...query, conditions: [...query.conditions, NOT_ERASED] });

/** One page of the users list as the request's grammar reads it, with the total its `count` asks for. */
export function readUserPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<UserRow>> {
  return readQueriedPage(db, USER_QUERY, userList, notErased(query), window, { countedTotal: countedUsers });
}

/** The columns `user_counts` keeps users by. */
const COUNTED_COLUMNS = ['role', 'status'] as const;

const sumUserCounts = counterSum('user_counts', COUNTED_COLUMNS);

/**
 * The exact total from `user_counts` (users.counters.migration.ts) when the filter is only equalities
 * or `in` lists on role and status (at most one condition each), or none: a sum over at most six rows,
 * instead of counting up to every user.
 */
function countedUsers(db: Db, conditions: readonly Condition[]): Promise<number> | undefined {
  const keys: Partial<Record<(typeof COUNTED_COLUMNS)[number], string[]>> = {};
  for (const condition of conditions) {
    if (condition === NOT_ERASED) continue;
    const column = COUNTED_COLUMNS.find((counted) => counted === condition.column);
    if (column === undefined || keys[column] !== undefined) return undefined;
    if (condition.operator === 'eq') keys[column] = [String(condition.value)];
    else if (condition.operator === 'in') keys[column] = (condition.value as readonly string[]).map(String);
    else return undefined;
  }
  return Promise.all([sumUserCounts(db, keys), countErased(db, keys)]).then(([all, erased]) => all - erased);
}

/** The tombstones among `keys`' role and status (the counters count them): the partial index `users_erased_idx`. */
async function countErased(db: Db, keys: Partial<Record<(typeof COUNTED_COLUMNS)[number], string[]>>) {
  let query = db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('erased_at', 'is not', null);
  if (keys.role) query = query.where('role', 'in', keys.role as UserRow['role'][]);
  if (keys.status) query = query.where('status', 'in', keys.status as UserRow['status'][]);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of users as a grammar's query orders and filters them, counted by nobody (GraphQL's `users(filter, orderBy)`). */
export function queryUserRows(db: Db, query: ListQuery, window: PageWindow): Promise<UserRow[]> {
  const keys = orderKeysOf(query.sort, 'id', query.idDirection);
  return userList.readPage(db, { conditions: [...query.conditions, NOT_ERASED], keys }, window);
}

/** One page of users by id, counted by nobody (GraphQL's `users`). */
export function listUserRows(db: Db, window: PageWindow): Promise<UserRow[]> {
  return userList.readPage(db, { conditions: [NOT_ERASED], keys: orderKeysOf([], 'id', ASCENDING) }, window);
}

/**
 * The one insert of a user, built on `qc`: a sign-up runs it through the outbox with its `user.created`
 * event (`recordInsert`, which builds it on its own steps on PostgreSQL), the start-up's administrator
 * through `insertUser`.
 */
export function userInsert(qc: QueryCreator<Tables>, row: NewUserRow) {
  return qc.insertInto('users').values(row).returningAll();
}

/** A user written alone, without an event (the administrator made at start-up). */
export function insertUser(db: Db, row: NewUserRow): Promise<UserRow> {
  return userInsert(db, row).executeTakeFirstOrThrow();
}

export function updateUserById(db: Db, id: number, changes: UserRowUpdate): Promise<UserRow | undefined> {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Posts, comments, likes and the avatar go with the user through the foreign keys' cascades. */
export async function deleteUserById(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function userHasOrders(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('orders').select('id').where('customer_id', '=', id).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function adminExists(db: Db): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('role', '=', 'admin').limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Turns the user into the tombstone of an erasure (DECISIONS §19): name `[erased]`, an e-mail no one can
 * sign in with, no age, no password, inactive. Their avatar goes.
 */
export async function eraseUserRow(trx: Db, id: number, at: string, email: string, name: string) {
  await trx.deleteFrom('user_avatars').where('user_id', '=', id).execute();
  return trx
    .updateTable('users')
    .set({
      name,
      email,
      age: null,
      status: 'inactive',
      password_hash: null,
      email_verified: false,
      erased_at: at,
      updated_at: at,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Reads a user inside a transaction, locking the row on PostgreSQL (SQLite serialises writers). */
export function lockUserById(db: Db, id: number): Promise<UserRow | undefined> {
  const query = db.selectFrom('users').selectAll().where('id', '=', id);
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}
