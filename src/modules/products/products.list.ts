import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { ASCENDING } from '../../core/db/sort-direction.ts';
import type { PageWindow } from '../../core/pagination.ts';
import {
  defineListGrammar,
  type Condition,
  type FieldRule,
  type FilterValue,
  type ListGrammar,
  type ListSettings,
  type SortKey,
} from '../../core/querying/list-grammar.ts';
import { nextCursorOf, readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import { parseListQuery, type ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf, orderKeysOf } from '../../core/querying/list-sql.ts';
import { readSearchParameters, searchResultsOf, type SearchResults } from '../../core/search/search-results.ts';
import { searchTextOf } from '../../core/search/search-source.ts';
import { isEmptySearch } from '../../core/search/web-search.ts';
import {
  centsOf,
  hasAtMostTwoDecimals,
  lowerBoundCents,
  PRICE_BOUNDS,
  upperBoundCents,
  type ProductFilter,
  type ProductSort,
  type ProductSortKey,
} from './product.ts';
import { countProducts, listProductsPage } from './products.list.statements.ts';
import { PRODUCT_SEARCH, type ProductRow } from './products.table.ts';

/**
 * The products list: its grammar per version (the seed's filters as its conditions, the seed's sort as
 * its keys), the one read of a list request that the page, its search extras, its facets and the
 * aggregates take their conditions from, and the page itself (the seed's one statement or core's list).
 */

/** A price in currency units as the cents it is stored in; none for a fraction of a cent or beyond exact cents. */
function toCents(value: FilterValue): number | undefined {
  const price = Number(value);
  if (!hasAtMostTwoDecimals(price)) return undefined;
  const cents = centsOf(price);
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/** Why a price has no cents value: the fix a 422 names. */
function centsError(value: FilterValue): string {
  return hasAtMostTwoDecimals(Number(value))
    ? 'is beyond the largest price'
    : 'must have at most two decimals (whole cents), e.g. 19.99';
}

/**
 * What a client may filter the products list by (DECISIONS §12), declared once (core/querying): the
 * seed's parameters (`category`, `min_price`, `max_price`, `in_stock`, `search`, read by the service
 * into conditions of these same fields) plus `price`, `stock`, `name`, `category` and the creation time
 * with operators. v1 names the creation time `created_at`, v2 `createdAt` (DECISIONS §7): one grammar
 * per version, alike otherwise. Sorting keeps the seed's whitelist (`PRODUCT_SORTS`, products.presenter.ts), not the grammar's
 * `sort` list; ties break by ascending id. `category=` is the seed's own parameter (any text, exact).
 * Indexes: migrations 0001, 0002, 0006 and products.migrations.ts.
 */
function productQuery<K extends 'created_at' | 'createdAt'>(createdKey: K) {
  const fields: Record<'price' | 'stock' | 'name' | 'category' | K, FieldRule> = {
    price: {
      column: 'price_cents',
      type: 'number',
      bounds: PRICE_BOUNDS,
      encode: toCents,
      encodeError: centsError,
      description: 'in currency units',
    },
    stock: { column: 'stock', type: 'integer' },
    name: { column: 'name', type: 'text' },
    category: { column: 'category', type: 'text', operators: ['eq', 'ne', 'in'] },
    [createdKey]: { column: 'created_at', type: 'timestamp' },
  } as Record<'price' | 'stock' | 'name' | 'category' | K, FieldRule>;
  return defineListGrammar({ resource: 'products', tieBreak: 'asc', seedParameters: ['category'], fields });
}

export const PRODUCT_QUERY_V1 = productQuery('created_at');
export const PRODUCT_QUERY_V2 = productQuery('createdAt');
export type ProductQuery = typeof PRODUCT_QUERY_V1 | typeof PRODUCT_QUERY_V2;

/** The seed's filters of the products list, as its parameters give them. */
export interface SeedProductFilters {
  category?: string | undefined;
  /** Inclusive bounds in currency units, compared exactly in cents. */
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  inStock?: boolean | undefined;
  search?: string | undefined;
}

/**
 * The seed's filters as conditions of the grammar's fields, each with its exact seed meaning: any
 * category text by equality, a price bound between cents rounded inwards (`min_price=19.991` is
 * 20.00 and up), `in_stock=true` as stock > 0, and a non-empty `search` as a name that contains it.
 */
export function seedConditionsOf(filters: SeedProductFilters): Condition[] {
  const conditions: Condition[] = [];
  const add = (field: string, column: string, operator: Condition['operator'], value: FilterValue) =>
    conditions.push({ field, column, operator, value });
  if (filters.category !== undefined) add('category', 'category', 'eq', filters.category);
  if (filters.minPrice !== undefined) add('price', 'price_cents', 'gte', lowerBoundCents(filters.minPrice));
  if (filters.maxPrice !== undefined) add('price', 'price_cents', 'lte', upperBoundCents(filters.maxPrice));
  if (filters.inStock) add('stock', 'stock', 'gt', 0);
  if (filters.search) add('name', 'name', 'contains', filters.search);
  return conditions;
}

/** The only columns a product sort names (user text never names a column). */
const SORT_COLUMNS = { price: 'price_cents', name: 'name', createdAt: 'created_at' } as const satisfies Record<
  ProductSortKey,
  string
>;

/** The seed's sort (`parseProductSort`, product.ts) as the grammar's sort keys; ties then break by ascending id. */
export function sortKeysOf(sorts: readonly ProductSort[]): SortKey[] {
  return sorts.map(({ key, direction }) => ({ field: key, column: SORT_COLUMNS[key], direction, nullable: false }));
}

/** What the products list, its facets and the aggregates read their conditions from (`ListProductsOptions` and less). */
export interface ProductListRequest extends SeedProductFilters {
  sort?: readonly ProductSort[] | undefined;
  count?: string | undefined;
  cursor?: string | undefined;
  parameters?: Readonly<Record<string, unknown>> | undefined;
  grammar?: ProductQuery | undefined;
  /** Full-text search (core/search): the list's rows are its matches, and so are its facets' and aggregates'. */
  q?: string | undefined;
  /** The searched fields to highlight (only with `q`): checked in the same read as `q`. */
  highlight?: string | undefined;
}

/**
 * A products list request read against its version's grammar: the seed's filters with their meaning
 * (the plain `category` is the seed's: any text, exact), the grammar's `field[op]` filters, the seed's
 * sort, `count` and `cursor`. The list, its facets and the aggregates read it here, so a filter means
 * the same in all three.
 */
export function productListQuery(actor: Principal | null, options: ProductListRequest, lists: ListSettings): ListQuery {
  return readProductListRequest(actor, options, lists).query;
}

/**
 * The one read of a products list request: `q` and `highlight` read once, the list grammar parsed once.
 * The page, its search extras and its facets all take their conditions from this answer.
 */
export function readProductListRequest(
  actor: Principal | null,
  options: ProductListRequest,
  lists: ListSettings,
): { query: ListQuery; highlight: string[] } {
  const grammar = options.grammar ?? PRODUCT_QUERY_V1;
  const parameters = { ...options.parameters, category: undefined };
  const { search, highlight } = readSearchParameters(PRODUCT_SEARCH, options.q, options.highlight);
  const request = {
    search,
    count: options.count,
    cursor: options.cursor,
    parameters,
    conditions: seedConditionsOf(options),
    sortKeys: sortKeysOf(options.sort ?? []),
  };
  return { query: parseListQuery(grammar, request, { admin: isAdmin(actor), ...lists }), highlight };
}

const productList = createListStatements<ProductRow>(
  'products',
  listColumnsOf([PRODUCT_QUERY_V1, PRODUCT_QUERY_V2], 'id'),
  PRODUCT_SEARCH,
);

/** A searched page's scores, highlights and suggestion (core/search). */
export const readProductSearchResults = (
  db: Db,
  query: ListQuery,
  rows: readonly ProductRow[],
  highlight: readonly string[],
): Promise<SearchResults | undefined> => searchResultsOf(db, PRODUCT_SEARCH, query, rows, highlight);

/**
 * One page of products as the request's grammar reads it (above), with the total its `count` asks
 * for and the cursor after it.
 *
 * A first page with the exact total whose filter the seed's own parameters could say (a category, a
 * price range, in stock, a name search) is the seed's list as it was: page and total in one statement,
 * the total from the maintained counters (products.list.statements.ts; cheaper than the shared
 * engine's two statements: the README's "Why the list has two engines"); only `nextCursor` is added. Any other request (a cursor,
 * `count=estimated|none`, an operator beyond those) reads through the shared list statements
 * (core/querying), the same counters behind core's counted-total hook (`countedProducts`) whenever they
 * can answer the filter; so does a full-text search (`q`), counted as it matches.
 */
export async function readProductPage(
  db: Db,
  grammar: ListGrammar,
  query: ListQuery,
  window: PageWindow,
): Promise<QueriedPage<ProductRow>> {
  const filter = productFilterOf(query.conditions);
  if (!filter || query.count !== 'exact' || query.cursor !== undefined || query.search) {
    return readQueriedPage(db, grammar, productList, query, window, { countedTotal: countedProducts });
  }
  const sort = query.sort.map(({ field, direction }) => ({ key: field as ProductSortKey, direction }));
  const { rows, total } = await listProductsPage(db, { ...filter, sort, limit: window.limit, offset: window.offset });
  const hasNext = window.offset + window.limit < total;
  const keys = orderKeysOf(query.sort, 'id', ASCENDING);
  return {
    items: rows,
    window,
    total,
    hasNext,
    nextCursor: hasNext ? nextCursorOf(query.fingerprint, keys, rows, window.offset) : null,
  };
}

/**
 * The ids of the products a list's conditions and search match, in id order, at most `cap` of them:
 * the rows a write by filter goes through (products.filter-writes.ts).
 */
export async function readMatchingProductIds(db: Db, query: ListQuery, cap: number): Promise<number[]> {
  if (query.search && isEmptySearch(query.search)) return [];
  const search = query.search && searchTextOf(query.search, dialectOf(db) === 'postgres');
  const keys = orderKeysOf([], 'id', ASCENDING);
  const rows = await productList.readPage(
    db,
    { conditions: query.conditions, keys, search },
    { limit: cap, offset: 0 },
  );
  return rows.map((row) => row.id);
}

/** The exact total from the counters (or their edge rows) when they can answer the filter; undefined otherwise. */
function countedProducts(db: Db, conditions: readonly Condition[]): Promise<number> | undefined {
  const filter = productFilterOf(conditions);
  return filter && filter.search === undefined ? countProducts(db, filter) : undefined;
}

/**
 * The conditions as the seed's filter, when they say no more than it can: one category by equality,
 * price bounds (`gt`, `gte`, `lt`, `lte`, `eq`: in whole cents, so `> v` is `>= v + 1`), stock above
 * zero, one name search. Undefined for anything else.
 */
export function productFilterOf(conditions: readonly Condition[]): ProductFilter | undefined {
  const filter: ProductFilter = {};
  const atLeast = (cents: number) => (filter.minPriceCents = Math.max(filter.minPriceCents ?? -Infinity, cents));
  const atMost = (cents: number) => (filter.maxPriceCents = Math.min(filter.maxPriceCents ?? Infinity, cents));
  for (const { column, operator, value } of conditions) {
    if (column === 'category' && operator === 'eq' && filter.category === undefined) {
      filter.category = String(value);
    } else if (column === 'price_cents' && typeof value === 'number' && Number.isSafeInteger(value)) {
      if (operator === 'gte' || operator === 'eq') atLeast(value);
      if (operator === 'gt') atLeast(value + 1);
      if (operator === 'lte' || operator === 'eq') atMost(value);
      if (operator === 'lt') atMost(value - 1);
      if (!['gte', 'gt', 'lte', 'lt', 'eq'].includes(operator)) return undefined;
    } else if (column === 'stock' && ((operator === 'gt' && value === 0) || (operator === 'gte' && value === 1))) {
      filter.inStock = true;
    } else if (column === 'name' && operator === 'contains' && filter.search === undefined) {
      filter.search = String(value);
    } else {
      return undefined;
    }
  }
  return filter;
}
