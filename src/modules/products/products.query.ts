import {
  defineListGrammar,
  type Condition,
  type FieldRule,
  type FilterValue,
  type SortKey,
} from '../../core/querying/list-grammar.ts';
import { centsOf, hasAtMostTwoDecimals, lowerBoundCents, PRICE_BOUNDS, upperBoundCents } from './money.ts';
import type { ProductSort, ProductSortKey } from './product.ts';

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
 * per version, alike otherwise. Sorting keeps the seed's whitelist (product-sort.ts), not the grammar's
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

/** The seed's sort (product-sort.ts) as the grammar's sort keys; ties then break by ascending id. */
export function sortKeysOf(sorts: readonly ProductSort[]): SortKey[] {
  return sorts.map(({ key, direction }) => ({ field: key, column: SORT_COLUMNS[key], direction, nullable: false }));
}
