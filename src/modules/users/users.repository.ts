import { sql } from 'kysely';
import { rowByIdStatement, rowsByIdsStatement } from '../../core/db/by-id-statements.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { statementCache } from '../../core/db/statement-cache.ts';
import type { NewUserRow, UserRow, UserRowUpdate } from './users.table.ts';
import type { UserSort } from './users.schemas.ts';

export interface UserFilter {
  role?: string | undefined;
  status?: string | undefined;
}

export interface UserListQuery extends UserFilter {
  sort: UserSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const SORT_COLUMNS = {
  id: 'id',
  name: 'name',
  email: 'email',
  age: 'age',
  createdAt: 'created_at',
} as const satisfies Record<UserSort, keyof UserRow>;

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

function filtered(db: Db, filter: UserFilter) {
  let query = db.selectFrom('users');
  if (filter.role) query = query.where('role', '=', filter.role as UserRow['role']);
  if (filter.status) query = query.where('status', '=', filter.status as UserRow['status']);
  return query;
}

interface UserListShape {
  column: (typeof SORT_COLUMNS)[UserSort];
  order: 'asc' | 'desc';
}

/** Every value the list binds; an absent filter (undefined) leaves its condition out. */
interface UserListParams extends Record<string, unknown> {
  role: string | undefined;
  status: string | undefined;
  limit: number;
  offset: number;
}

/** The SQL of each sort, order and set of filters is built once (`statementCache`). */
const listStatement = statementCache({
  keyOf: (shape: UserListShape) => `${shape.column} ${shape.order}`,
  build: (db, shape, params: UserListParams) => {
    let select = filtered(db, params).selectAll();
    // Nulls sort last in both directions on both databases (they disagree by default).
    if (shape.column === 'age') select = select.orderBy(sql`age is null`);
    return select
      .orderBy(shape.column, shape.order)
      .orderBy('id', shape.order)
      .limit(params.limit)
      .offset(params.offset);
  },
});

export async function listUsers(db: Db, query: UserListQuery): Promise<UserRow[]> {
  const shape: UserListShape = { column: SORT_COLUMNS[query.sort], order: query.order };
  // `filtered` leaves out an empty filter as well as an absent one.
  const params: UserListParams = {
    role: query.role || undefined,
    status: query.status || undefined,
    limit: query.limit,
    offset: query.offset,
  };
  return readRows(db, listStatement(db, shape, params));
}

export async function countUsers(db: Db, filter: UserFilter): Promise<number> {
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
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
