import { dialectOf, type Db } from '../../core/db/database.ts';
import { rowByIdStatement, rowsByIdsStatement } from '../../core/db/by-id-statements.ts';
import { readRows } from '../../core/db/fast-read.ts';
import type { ProductRow, ProductRowUpdate } from './products.table.ts';

const productById = rowByIdStatement<ProductRow>('products');
const productsByIds = rowsByIdsStatement<ProductRow>('products');

export async function findProductById(db: Db, id: number): Promise<ProductRow | undefined> {
  return (await readRows(db, productById(db, id)))[0];
}

/** In no particular order; missing ids left out. */
export async function findProductsByIds(db: Db, ids: readonly number[]): Promise<ProductRow[]> {
  return ids.length === 0 ? [] : readRows(db, productsByIds(db, ids));
}

export function updateProductById(db: Db, id: number, changes: ProductRowUpdate): Promise<ProductRow | undefined> {
  return db.updateTable('products').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Order items restrict the delete through their foreign key; the caller maps that to a 409. */
export async function deleteProductById(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('products').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Reads a product inside a transaction, locking the row on PostgreSQL (SQLite serialises writers). */
export function lockProductById(db: Db, id: number): Promise<ProductRow | undefined> {
  const query = db.selectFrom('products').selectAll().where('id', '=', id);
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}
