import { sql, type AliasableExpression, type Insertable, type Updateable } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { PRICE_BUCKET_CENTS } from '../../core/db/migrations/0003-product-price-counts.ts';
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

export interface ProductListPage {
  rows: ProductRow[];
  total: number;
}

/**
 * One page of products and the exact number the filter matches, in one statement: the total is an
 * uncorrelated scalar subquery (run once, from the same snapshot as the page) carried on every row.
 * One round trip instead of two is most of what a cheap list costs on PostgreSQL (bench/PRODUCTS.md).
 * A page with no rows has no row to carry it: at offset 0 the total is then 0; past the end it is
 * counted on its own.
 */
export async function listProductsPage(db: Db, query: ProductListQuery): Promise<ProductListPage> {
  let select = filtered(db, query).selectAll('products').select(totalOf(db, query).as('list_total'));
  for (const { key, direction } of query.sort) select = select.orderBy(SORT_COLUMNS[key], direction);
  const rows = await select.orderBy('id', 'asc').limit(query.limit).offset(query.offset).execute();
  const first = rows[0];
  if (first !== undefined) return { rows, total: Number(first.list_total) };
  return { rows: [], total: query.offset === 0 ? 0 : await countProducts(db, query) };
}

/** The exact number of products a filter matches. */
export async function countProducts(db: Db, filter: ProductFilter): Promise<number> {
  const row = await db.selectNoFrom(totalOf(db, filter).as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

type Total = AliasableExpression<number | string>;

/**
 * The exact number of products a filter matches, as one SQL expression. Trigger-kept counters answer
 * without reading the matching rows: `product_counts` when the filter is only category and/or
 * in_stock, and `product_price_counts` (plus the rows of two edge buckets) when it has a price
 * bound. A name search counts the matching rows.
 */
function totalOf(db: Db, filter: ProductFilter): Total {
  if (filter.search) return countMatchingRows(db, filter);
  if (filter.minPriceCents === undefined && filter.maxPriceCents === undefined) return sumCategoryCounters(db, filter);
  return countPriceRange(db, filter);
}

function countMatchingRows(db: Db, filter: ProductFilter): Total {
  return filtered(db, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .$asScalar();
}

function sumCategoryCounters(db: Db, filter: ProductFilter): Total {
  let query = db.selectFrom('product_counts').select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), sql.lit(0)).as('n'));
  if (filter.category !== undefined) query = query.where('category', '=', filter.category);
  if (filter.inStock) query = query.where('in_stock', '=', true);
  return query.$asScalar();
}

const BUCKET = PRICE_BUCKET_CENTS;

/** `floor(cents / BUCKET)` for cents >= 0, exact for every safe integer (a float division can round up). */
const bucketOf = (cents: number) => (cents - (cents % BUCKET)) / BUCKET;

/**
 * The counters of the buckets wholly inside [from, to], plus the rows of the partial buckets at each
 * end, in one statement: a primary-key range on the counters and `(category, price_cents, id)` or
 * `(price_cents, id)` range counts for the edges (plans in bench/PRODUCTS.md). Prices are never
 * negative (a check constraint), so the range starts at 0 at least; without a maximum it is open at
 * the top. Edges are half-open, [start, end): bucket starts (even numbers below 2^54) and `to + 1`
 * (at most 2^53) stay exact doubles even for the largest bounds.
 */
function countPriceRange(db: Db, filter: ProductFilter): Total {
  const from = Math.max(filter.minPriceCents ?? 0, 0);
  const to = filter.maxPriceCents;
  if (to !== undefined && to < from) return sql.lit(0);
  const firstBucket = bucketOf(from) + (from % BUCKET === 0 ? 0 : 1);
  const lastBucket = to === undefined ? undefined : bucketOf(to) - (to % BUCKET === BUCKET - 1 ? 0 : 1);
  // No whole bucket inside: the range is under two buckets wide, and its rows are counted directly.
  if (lastBucket !== undefined && lastBucket < firstBucket) return countMatchingRows(db, filter);

  const parts: Total[] = [sumPriceCounters(db, filter, firstBucket, lastBucket)];
  if (from < firstBucket * BUCKET) parts.push(countRowsPricedWithin(db, filter, from, firstBucket * BUCKET));
  if (to !== undefined && lastBucket !== undefined && (lastBucket + 1) * BUCKET <= to) {
    parts.push(countRowsPricedWithin(db, filter, (lastBucket + 1) * BUCKET, to + 1));
  }
  return parts.length === 1 ? parts[0]! : sql<number | string>`(${sql.join(parts, sql` + `)})`;
}

function sumPriceCounters(db: Db, filter: ProductFilter, firstBucket: number, lastBucket: number | undefined) {
  let query = db
    .selectFrom('product_price_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), sql.lit(0)).as('n'))
    .where('bucket', '>=', firstBucket);
  if (lastBucket !== undefined) query = query.where('bucket', '<=', lastBucket);
  if (filter.category !== undefined) query = query.where('category', '=', filter.category);
  if (filter.inStock) query = query.where('in_stock', '=', true);
  return query.$asScalar();
}

/** Products of the filter's category and stock status priced in [fromCents, belowCents). */
function countRowsPricedWithin(db: Db, filter: ProductFilter, fromCents: number, belowCents: number) {
  return filtered(db, { category: filter.category, inStock: filter.inStock, minPriceCents: fromCents })
    .where('price_cents', '<', belowCents)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .$asScalar();
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
