import { sql, type Insertable, type Updateable } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { ProductsTable } from '../../core/db/tables.ts';
import { containsPattern } from './like-pattern.ts';
import type { ProductFilter, ProductRow, ProductSort, ProductSortKey } from './product.ts';

export type NewProductRow = Insertable<ProductsTable>;
export type ProductRowUpdate = Updateable<ProductsTable>;

export interface ProductListQuery extends ProductFilter {
  sort: readonly ProductSort[];
  limit: number;
  offset: number;
}

/** The only column names an order can use: user text never names a column. */
const SORT_COLUMNS = {
  price: 'price_cents',
  name: 'name',
  createdAt: 'created_at',
} as const satisfies Record<ProductSortKey, keyof ProductRow>;

export function findProductById(db: Db, id: number): Promise<ProductRow | undefined> {
  return db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
}

function filtered(db: Db, filter: ProductFilter) {
  let query = db.selectFrom('products');
  if (filter.category !== undefined) query = query.where('category', '=', filter.category);
  if (filter.minPriceCents !== undefined) query = query.where('price_cents', '>=', filter.minPriceCents);
  if (filter.maxPriceCents !== undefined) query = query.where('price_cents', '<=', filter.maxPriceCents);
  if (filter.inStock) query = query.where('stock', '>', 0);
  if (filter.search) {
    // SQLite's LIKE ignores ASCII case; PostgreSQL needs ILIKE. The pattern is always a bound parameter.
    const operator = sql.raw(dialectOf(db) === 'postgres' ? 'ilike' : 'like');
    query = query.where(sql<boolean>`${sql.ref('name')} ${operator} ${containsPattern(filter.search)} escape '\\'`);
  }
  return query;
}

export function listProducts(db: Db, query: ProductListQuery): Promise<ProductRow[]> {
  let select = filtered(db, query).selectAll();
  for (const { key, direction } of query.sort) select = select.orderBy(SORT_COLUMNS[key], direction);
  return select.orderBy('id', 'asc').limit(query.limit).offset(query.offset).execute();
}

/**
 * The exact number of products a filter matches. Without a price or name filter the answer comes
 * from the trigger-maintained `product_counts` (a few rows instead of up to a million); otherwise
 * the matching rows are counted.
 */
export async function countProducts(db: Db, filter: ProductFilter): Promise<number> {
  if (filter.minPriceCents === undefined && filter.maxPriceCents === undefined && !filter.search) {
    let query = db.selectFrom('product_counts').select((eb) => eb.fn.sum<number | string | null>('n').as('count'));
    if (filter.category !== undefined) query = query.where('category', '=', filter.category);
    if (filter.inStock) query = query.where('in_stock', '=', true);
    const row = await query.executeTakeFirst();
    return Number(row?.count ?? 0);
  }
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function insertProduct(db: Db, row: NewProductRow): Promise<ProductRow> {
  return db.insertInto('products').values(row).returningAll().executeTakeFirstOrThrow();
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
