import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.query.ts';
import { ASCENDING } from '../../core/db/sort-direction.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { searchTextOf } from '../../core/search/search-source.ts';
import { isEmptySearch } from '../../core/search/web-search.ts';
import type { PageWindow } from '../../core/pagination.ts';
import type { Condition, ListGrammar } from '../../core/querying/list-grammar.ts';
import { nextCursorOf, readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf, orderKeysOf } from '../../core/querying/list-sql.ts';
import type { ProductFilter, ProductSortKey } from './product.ts';
import { countProducts, listProductsPage } from './products.list.statements.ts';
import type { ProductRow } from './products.table.ts';
import { searchResultsOf, type SearchResults } from '../../core/search/search-results.ts';
import { PRODUCT_SEARCH } from './products.search.ts';

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
 * One page of products as the request's grammar reads it (products.query.ts), with the total its
 * `count` asks for and the cursor after it.
 *
 * A first page with the exact total whose filter the seed's own parameters could say (a category, a
 * price range, in stock, a name search) is the seed's list as it was: page and total in one statement,
 * the total from the maintained counters (products.list.statements.ts); only `nextCursor` is added. Any
 * other request (a cursor, `count=estimated|none`, an operator beyond those) reads through the shared
 * list statements (core/querying), whose exact and estimated totals still come from the counters
 * whenever they can answer the filter; so does a full-text search (`q`), counted as it matches.
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
 * the rows a write by filter goes through (products.filter-writes.service.ts).
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
