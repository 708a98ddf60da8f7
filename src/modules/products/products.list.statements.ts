import { sql, type AliasableExpression } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { shapedStatement, type Bound, type BoundParams } from '../../core/db/statement-cache.ts';
import { containsPattern } from '../../core/db/like-pattern.ts';
import type { FacetValue } from '../../core/querying/aggregate-answer.ts';
import { MAX_FACET_VALUES } from '../../core/querying/aggregate-grammar.ts';
import { PRICE_BUCKET_CENTS, type ProductFilter, type ProductSort, type ProductSortKey } from './product.ts';
import type { ProductRow } from './products.table.ts';

export interface ProductListQuery extends ProductFilter {
  sort: readonly ProductSort[];
  limit: number;
  offset: number;
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
 * counted on its own. The SQL of each shape of query is built once (`shapedStatement`).
 */
export async function listProductsPage(db: Db, query: ProductListQuery): Promise<ProductListPage> {
  const { shape, params } = planOf(query);
  const rows = await readRows(
    db,
    pageStatement(db, { ...shape, sort: query.sort }, { ...params, limit: query.limit, offset: query.offset }),
  );
  const first = rows[0];
  if (first !== undefined) return { rows, total: Number(first.list_total) };
  // The limit is at least 1 (pageWindow), so an empty first page means nothing matches.
  return { rows: [], total: query.offset === 0 ? 0 : await countPlanned(db, shape, params) };
}

/** The exact number of products a filter matches. */
export function countProducts(db: Db, filter: ProductFilter): Promise<number> {
  const { shape, params } = planOf(filter);
  return countPlanned(db, shape, params);
}

/** The category facet from `product_counts` (of the products in stock only, with `inStock`): a row per category. */
export async function countedCategoryFacet(db: Db, inStock: boolean): Promise<FacetValue[]> {
  const total = sql<number | string>`sum(n)`;
  // By bytes on both databases, as the facets read from the rows (core/querying/aggregate-sql.ts).
  const byValue = dialectOf(db) === 'postgres' ? sql`category collate "C"` : sql`category`;
  let query = db
    .selectFrom('product_counts')
    .select([sql<string>`category`.as('value'), total.as('count')])
    .groupBy('category')
    // A category whose last product went keeps its counter row at zero.
    .having(total, '>', 0)
    .orderBy(total, 'desc')
    .orderBy(byValue)
    .limit(MAX_FACET_VALUES);
  if (inStock) query = query.where('in_stock', '=', true);
  const rows = await query.execute();
  return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
}

async function countPlanned(db: Db, shape: FilterShape, params: FilterParams): Promise<number> {
  const rows = await readRows(db, countStatement(db, shape, params));
  return Number(rows[0]?.count ?? 0);
}

/**
 * How the total is found. Trigger-kept counters answer without reading the matching rows:
 * `product_counts` when the filter is only category and/or in_stock, `product_price_counts` (plus
 * the rows of at most two edge buckets) when it has a price bound. A name search, or a price range
 * too narrow to hold a whole bucket, counts the matching rows; an empty price range is 0.
 */
type TotalKind = 'counters' | 'buckets' | 'rows' | 'zero';

type FilterShape = {
  inStock: boolean;
  total: TotalKind;
};

/** Every value the statement binds. An undefined one leaves its condition out (part of the shape). */
interface FilterParams extends Record<string, unknown> {
  category: string | undefined;
  minPriceCents: number | undefined;
  maxPriceCents: number | undefined;
  pattern: string | undefined;
  /** Price counters summed: buckets firstBucket..lastBucket (open at the top without lastBucket). */
  firstBucket: number | undefined;
  lastBucket: number | undefined;
  /** Edge rows counted directly, prices in [lowFrom, lowBelow) and [highFrom, highBelow). */
  lowFrom: number | undefined;
  lowBelow: number | undefined;
  highFrom: number | undefined;
  highBelow: number | undefined;
}

type PageShape = FilterShape & {
  sort: readonly ProductSort[];
};

interface PageParams extends FilterParams {
  limit: number;
  offset: number;
}

const BUCKET = PRICE_BUCKET_CENTS;

/** `floor(cents / BUCKET)` for cents >= 0, exact for every safe integer (a float division can round up). */
const bucketOf = (cents: number) => (cents - (cents % BUCKET)) / BUCKET;

/**
 * The shape and values of a filter's statement. With a price bound and no search, the total is the
 * counters of the buckets wholly inside [from, to] plus the rows of the partial buckets at each end:
 * a primary-key range on the counters and `(category, price_cents, id)` or `(price_cents, id)` range
 * counts for the edges (plans in bench/PRODUCTS.md). Prices are never negative (a check constraint),
 * so the range starts at 0 at least; without a maximum it is open at the top. Edges are half-open,
 * [start, end): bucket starts (even numbers below 2^54) and `to + 1` (at most 2^53) stay exact
 * doubles even for the largest bounds.
 */
function planOf(filter: ProductFilter): { shape: FilterShape; params: FilterParams } {
  const params: FilterParams = {
    category: filter.category,
    minPriceCents: filter.minPriceCents,
    maxPriceCents: filter.maxPriceCents,
    pattern: filter.search ? containsPattern(filter.search) : undefined,
    firstBucket: undefined,
    lastBucket: undefined,
    lowFrom: undefined,
    lowBelow: undefined,
    highFrom: undefined,
    highBelow: undefined,
  };
  const plan = (total: TotalKind) => ({ shape: { inStock: filter.inStock === true, total }, params });
  if (params.pattern !== undefined) return plan('rows');
  if (filter.minPriceCents === undefined && filter.maxPriceCents === undefined) return plan('counters');

  const from = Math.max(filter.minPriceCents ?? 0, 0);
  const to = filter.maxPriceCents;
  if (to !== undefined && to < from) return plan('zero');
  const firstBucket = bucketOf(from) + (from % BUCKET === 0 ? 0 : 1);
  const lastBucket = to === undefined ? undefined : bucketOf(to) - (to % BUCKET === BUCKET - 1 ? 0 : 1);
  // No whole bucket inside: the range is under two buckets wide, and its rows are counted directly.
  if (lastBucket !== undefined && lastBucket < firstBucket) return plan('rows');
  params.firstBucket = firstBucket;
  params.lastBucket = lastBucket;
  if (from < firstBucket * BUCKET) [params.lowFrom, params.lowBelow] = [from, firstBucket * BUCKET];
  if (to !== undefined && lastBucket !== undefined && (lastBucket + 1) * BUCKET <= to) {
    [params.highFrom, params.highBelow] = [(lastBucket + 1) * BUCKET, to + 1];
  }
  return plan('buckets');
}

/** The only column names an order can use: user text never names a column. */
const SORT_COLUMNS = {
  price: 'price_cents',
  name: 'name',
  createdAt: 'created_at',
} as const satisfies Record<ProductSortKey, keyof ProductRow>;

const pageStatement = shapedStatement({
  build: (db, shape: PageShape, params: BoundParams<PageParams>) => {
    if (dialectOf(db) === 'postgres') return pageByKeys(db, shape, params);
    let select = filtered(db, shape.inStock, params)
      .selectAll('products')
      .select(totalOf(db, shape, params).as('list_total'));
    for (const { key, direction } of shape.sort) select = select.orderBy(SORT_COLUMNS[key], direction);
    return select.orderBy('id', 'asc').limit(params.limit).offset(params.offset);
  },
});

/**
 * PostgreSQL: the page's ids and sort keys first (an index-only scan where an index holds the filter
 * and the order, as `(category, price_cents desc, id)` of migration 0006 does for a category's price
 * range by price descending), then its rows by primary key, in the page's order. The statement is
 * named (pg-named-statements.ts), so after five runs PostgreSQL plans it once for any values (a generic
 * plan), and a generic plan guesses a price range keeps a small share of the rows: with the rows read
 * directly, it chose to read and sort every matching row of the benchmark's W2 over walking the index
 * in order. Reading keys first is cheap under either plan: a few index pages and one lookup per row of
 * the page; it about halved PostgreSQL's CPU per page under generic plans (bench/RESULTS.md,
 * "Changes", 27). SQLite plans its own way and keeps the direct read.
 */
function pageByKeys(db: Db, shape: PageShape, params: BoundParams<PageParams>) {
  const sortColumns = [...new Set(shape.sort.map(({ key }) => SORT_COLUMNS[key]))];
  let keys = filtered(db, shape.inStock, params).select(['id', ...sortColumns]);
  for (const { key, direction } of shape.sort) keys = keys.orderBy(SORT_COLUMNS[key], direction);
  const page = keys.orderBy('id', 'asc').limit(params.limit).offset(params.offset).as('page');
  // Each row by its primary key, one lookup per key: a plain join let the generic plan, which guesses
  // a page of a tenth of the filter's rows, hash the page against a scan of the whole table (50,000
  // products, a category of 2,500: products.list.plan.test.ts). A lateral subquery with a limit is
  // never flattened into the join, so it stays a nested loop of index lookups.
  let select = db
    .selectFrom(page)
    .innerJoinLateral(
      (eb) => eb.selectFrom('products').selectAll().whereRef('products.id', '=', 'page.id').limit(1).as('product'),
      (join) => join.onTrue(),
    )
    .selectAll('product')
    .select(totalOf(db, shape, params).as('list_total'));
  for (const { key, direction } of shape.sort) select = select.orderBy(sql.ref(`page.${SORT_COLUMNS[key]}`), direction);
  return select.orderBy('page.id', 'asc');
}

const countStatement = shapedStatement({
  build: (db, shape: FilterShape, params: BoundParams<FilterParams>) =>
    db.selectNoFrom(totalOf(db, shape, params).as('count')),
});

/** Products matching the filter's conditions: each present value adds one, always as a bound parameter. */
function filtered(
  db: Db,
  inStock: boolean,
  params: BoundParams<Pick<FilterParams, 'category' | 'minPriceCents' | 'maxPriceCents' | 'pattern'>>,
) {
  let query = db.selectFrom('products');
  if (params.category !== undefined) query = query.where('category', '=', params.category);
  if (params.minPriceCents !== undefined) query = query.where('price_cents', '>=', params.minPriceCents);
  if (params.maxPriceCents !== undefined) query = query.where('price_cents', '<=', params.maxPriceCents);
  if (inStock) query = query.where('stock', '>', 0);
  if (params.pattern !== undefined) {
    // SQLite's LIKE ignores ASCII case; PostgreSQL needs ILIKE.
    const operator = sql.raw(dialectOf(db) === 'postgres' ? 'ilike' : 'like');
    query = query.where(sql<boolean>`${sql.ref('name')} ${operator} ${params.pattern} escape '\\'`);
  }
  return query;
}

type Total = AliasableExpression<number | string>;

/** The exact number of products the filter matches, as one SQL expression. */
function totalOf(db: Db, shape: FilterShape, params: BoundParams<FilterParams>): Total {
  switch (shape.total) {
    case 'zero':
      return sql.lit(0);
    case 'rows':
      return countRows(filtered(db, shape.inStock, params));
    case 'counters':
      return sumCategoryCounters(db, shape.inStock, params);
    case 'buckets':
      return sumBuckets(db, shape.inStock, params);
  }
}

function countRows(rows: ReturnType<typeof filtered>): Total {
  return rows.select((eb) => eb.fn.countAll<number>().as('n')).$asScalar();
}

function sumCategoryCounters(db: Db, inStock: boolean, params: BoundParams<FilterParams>): Total {
  let query = db
    .selectFrom('product_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), sql.lit(0)).as('n'));
  if (params.category !== undefined) query = query.where('category', '=', params.category);
  if (inStock) query = query.where('in_stock', '=', true);
  return query.$asScalar();
}

function sumBuckets(db: Db, inStock: boolean, params: BoundParams<FilterParams>): Total {
  // One primary-key range (category, in_stock, bucket) per stock status: without in_stock fixed, a
  // single query could range over the buckets only after reading every counter of the category.
  const counters = (stocked: boolean) => {
    let query = db
      .selectFrom('product_price_counts')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), sql.lit(0)).as('n'))
      .where('in_stock', '=', stocked)
      .where('bucket', '>=', params.firstBucket!);
    if (params.lastBucket !== undefined) query = query.where('bucket', '<=', params.lastBucket);
    if (params.category !== undefined) query = query.where('category', '=', params.category);
    return query.$asScalar();
  };
  const parts: Total[] = inStock ? [counters(true)] : [counters(true), counters(false)];
  /** Products of the filter's category and stock status priced in [from, below). */
  const edge = (from: Bound<number>, below: Bound<number>) =>
    countRows(
      filtered(db, inStock, {
        category: params.category,
        minPriceCents: from,
        maxPriceCents: undefined,
        pattern: undefined,
      }).where('price_cents', '<', below),
    );
  if (params.lowFrom !== undefined) parts.push(edge(params.lowFrom, params.lowBelow!));
  if (params.highFrom !== undefined) parts.push(edge(params.highFrom, params.highBelow!));
  return parts.length === 1 ? parts[0]! : sql<number | string>`(${sql.join(parts, sql` + `)})`;
}
