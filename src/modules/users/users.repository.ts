import { sql } from 'kysely';
import { rowByIdStatement, rowsByIdsStatement } from '../../core/db/by-id-statements.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { statementCache } from '../../core/db/statement-cache.ts';
import type { NewUserRow, UserRow, UserRowUpdate } from './users.table.ts';
import type { PageWindow } from '../../core/pagination.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { Condition } from '../../core/querying/list-grammar.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, orderKeysOf } from '../../core/querying/list-sql.ts';
import { USER_QUERY } from './users.query.ts';

const userById = rowByIdStatement<UserRow>('users');
const rightsById = rowByIdStatement<Pick<UserRow, 'role' | 'status'>>('users', ['role', 'status']);
const usersByIds = rowsByIdsStatement<UserRow>('users');

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return (await readRows(db, userById(db, id)))[0];
}

/** The caller's current rights (core/access/rights.ts): a primary-key read of two columns. */
export async function findUserRights(db: Db, id: number): Promise<Pick<UserRow, 'role' | 'status'> | undefined> {
  return (await readRows(db, rightsById(db, id)))[0];
}

/** With `columns`, only those are read (the rows' other properties are absent); in no particular order. */
export async function findUsersByIds(
  db: Db,
  ids: readonly number[],
  columns?: readonly (keyof UserRow)[],
): Promise<UserRow[]> {
  return ids.length === 0 ? [] : readRows(db, usersByIds(db, ids, columns));
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

const userList = createListStatements<UserRow>('users');

/** One page of the users list as the request's grammar reads it, with the total its `count` asks for. */
export function readUserPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<UserRow>> {
  return readQueriedPage(db, USER_QUERY, userList, query, window, { countedTotal: countedUsers });
}

/** The columns `user_counts` keeps users by. */
const COUNTED_COLUMNS = new Set(['role', 'status']);

/** Every value the counters' statement binds; an absent one leaves its condition out. */
interface CounterParams extends Record<string, unknown> {
  role: string | readonly string[] | undefined;
  status: string | readonly string[] | undefined;
}

const countersStatement = statementCache({
  keyOf: (shape: { role: 'eq' | 'in' | 'none'; status: 'eq' | 'in' | 'none' }) => `${shape.role} ${shape.status}`,
  build: (db, shape, params: CounterParams) => {
    let query = db
      .selectFrom('user_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), sql.lit(0)).as('n'));
    for (const column of ['role', 'status'] as const) {
      const value = params[column];
      if (shape[column] === 'eq') query = query.where(column, '=', value as string);
      if (shape[column] === 'in')
        query = query.where(sql<boolean>`${sql.ref(column)} in (${sql.join(value as string[])})`);
    }
    return query;
  },
});

/**
 * The exact total from `user_counts` (users.counters.migration.ts) when the filter is only equalities
 * or `in` lists on role and status (at most one condition each), or none: a sum over at most six rows,
 * instead of counting up to every user.
 */
function countedUsers(db: Db, conditions: readonly Condition[]): Promise<number> | undefined {
  const shape = { role: 'none', status: 'none' } as { role: 'eq' | 'in' | 'none'; status: 'eq' | 'in' | 'none' };
  const params: CounterParams = { role: undefined, status: undefined };
  for (const condition of conditions) {
    const column = condition.column as 'role' | 'status';
    if (!COUNTED_COLUMNS.has(column) || shape[column] !== 'none') return undefined;
    if (condition.operator === 'eq') params[column] = String(condition.value);
    else if (condition.operator === 'in') params[column] = (condition.value as readonly string[]).map(String);
    else return undefined;
    shape[column] = condition.operator;
  }
  return readRows(db, countersStatement(db, shape, params)).then((rows) => Number(rows[0]?.n ?? 0));
}

/** One page of users as a grammar's query orders and filters them, counted by nobody (GraphQL's `users(filter, orderBy)`). */
export function queryUserRows(db: Db, query: ListQuery, window: PageWindow): Promise<UserRow[]> {
  const keys = orderKeysOf(query.sort, 'id', query.idDirection);
  return userList.readPage(db, { conditions: query.conditions, keys }, window);
}

/** One page of users by id, counted by nobody (GraphQL's `users`). */
export function listUserRows(db: Db, window: PageWindow): Promise<UserRow[]> {
  return userList.readPage(db, { conditions: [], keys: orderKeysOf([], 'id', 'asc') }, window);
}

export function insertUser(db: Db, row: NewUserRow): Promise<UserRow> {
  return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
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

/** Reads a user inside a transaction, locking the row on PostgreSQL (SQLite serialises writers). */
export function lockUserById(db: Db, id: number): Promise<UserRow | undefined> {
  const query = db.selectFrom('users').selectAll().where('id', '=', id);
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}
