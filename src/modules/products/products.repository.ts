import { sql, type Insertable, type QueryCreator, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import { rowByIdReader, rowsByIdsReader } from '../../core/db/by-id-statements.ts';
import { columnInParam, idListParam } from '../../core/db/id-list.ts';
import type { ProductRow, ProductRowUpdate, ProductsTable } from './products.table.ts';

export const findProductById = rowByIdReader<ProductRow>('products');

/** The insert of a new product, built on `qc` (the outbox runs it with its `product.created` event: `recordInsert`). */
export function productInsert(qc: QueryCreator<Tables>, row: Insertable<ProductsTable>) {
  return qc.insertInto('products').values(row).returningAll();
}

export function findProductBySku(db: Db, sku: string): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('sku', '=', sku).executeTakeFirst();
}

/** In no particular order; missing ids left out. */
export const findProductsByIds = rowsByIdsReader<ProductRow>('products');

/** `id` is one of `ids` (not empty): one id as `id = $1`, the single writes' statement, more as one list. */
const idIn = (db: Db, ids: readonly number[]) =>
  ids.length === 1 ? sql<SqlBool>`${sql.ref('id')} = ${ids[0]}` : columnInParam(db, 'id', idListParam(db, ids));

/** The same changes on each of `ids` (not empty), returning the rows as written, in no particular order. */
export function updateProductsByIds(db: Db, ids: readonly number[], changes: ProductRowUpdate): Promise<ProductRow[]> {
  return db.updateTable('products').set(changes).where(idIn(db, ids)).returningAll().execute();
}

/** Each of `ids` (not empty) removed; order items restrict it through their foreign key (the caller's 409). */
export async function deleteProductsByIds(db: Db, ids: readonly number[]): Promise<void> {
  await db.deleteFrom('products').where(idIn(db, ids)).execute();
}

/** Reads a product inside a transaction, locking the row on PostgreSQL (SQLite serialises writers). */
export function lockProductById(db: Db, id: number): Promise<ProductRow | undefined> {
  const query = db.selectFrom('products').selectAll().where('id', '=', id);
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * `lockProductById` for each of `ids` (not empty), in one statement, locked in id order (two such locks
 * of overlapping rows wait rather than deadlock); missing ids left out.
 */
export function lockProductsByIds(db: Db, ids: readonly number[]): Promise<ProductRow[]> {
  const query = db.selectFrom('products').selectAll().where(idIn(db, ids)).orderBy('id');
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).execute();
}
