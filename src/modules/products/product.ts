import type { Principal } from '../../core/access/principal.ts';
import type { SortDirection } from '../../core/db/sort-direction.ts';
import type { Precondition } from '../../core/precondition.ts';
import type { ProductRow } from './products.table.ts';

/**
 * The product as the domain knows it (money in exact integer cents), its filter and sort, the seed's
 * `sort` parameter, money's conversions and the width of the price counters' buckets.
 */

/** The product as the domain knows it: money in exact integer cents. */
export interface Product {
  id: number;
  name: string;
  category: string;
  priceCents: number;
  stock: number;
  image: string | null;
  description: string | null;
  sku: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ProductSortKey = 'price' | 'name' | 'createdAt';

/** One key of a list order; an empty list of keys means ascending id. Ties always break by ascending id. */
export type ProductSort = {
  key: ProductSortKey;
  direction: SortDirection;
};

export interface ProductFilter {
  category?: string | undefined;
  /** Inclusive bounds, in cents. */
  minPriceCents?: number | undefined;
  maxPriceCents?: number | undefined;
  inStock?: boolean | undefined;
  /** Case-insensitive substring of the name, matched literally. */
  search?: string | undefined;
}

export function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    priceCents: Number(row.price_cents),
    stock: row.stock,
    image: row.image,
    description: row.description,
    sku: row.sku ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Parses the seed's `sort` list (`-price,name`) against a version's whitelist of public names.
 * Any value outside the whitelist makes the whole order ascending by id (the seed's rule, which
 * also means no user text ever becomes a column name). A repeated key keeps its first direction.
 */
export function parseProductSort(
  raw: string | undefined,
  whitelist: Readonly<Record<string, ProductSort>>,
): ProductSort[] {
  if (raw === undefined) return [];
  const tokens = raw
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
  const sorts: ProductSort[] = [];
  for (const token of tokens) {
    if (!Object.hasOwn(whitelist, token)) return [];
    const sort = whitelist[token]!;
    if (!sorts.some((s) => s.key === sort.key)) sorts.push(sort);
  }
  return sorts;
}

// Money is stored as integer cents and served as a JSON number with at most two decimals. Prices
// arrive as JSON numbers (binary floats), so every conversion goes through cents here.

/** The highest price accepted on write: far below the point where cents stop being exact integers. */
export const MAX_PRICE = 100_000_000;

/** The range and the cents of a price, as the body, the list's filters and the documents all state them. */
export const PRICE_BOUNDS = { minimum: 0, maximum: MAX_PRICE, multipleOf: 0.01 } as const;

/**
 * True when a price has at most two decimals. `multipleOf: 0.01` fails on floats (0.07 % 0.01 ≠ 0);
 * instead, the nearest cent divided by 100 must give back the very same double, which holds
 * exactly for every decimal with two places and for nothing else.
 */
export function hasAtMostTwoDecimals(price: number): boolean {
  return Number.isFinite(price) && Math.round(price * 100) / 100 === price;
}

/** Cents of a price already known to have at most two decimals. */
export function centsOf(price: number): number {
  return Math.round(price * 100);
}

export function priceOf(cents: number): number {
  return cents / 100;
}

const clampCents = (cents: number) => Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, cents));

/** `price >= min` in cents: an exact cent value is kept, anything between cents rounds up. */
export function lowerBoundCents(min: number): number {
  if (hasAtMostTwoDecimals(min)) return clampCents(centsOf(min));
  return clampCents(Math.ceil(min * 100));
}

/** `price <= max` in cents: an exact cent value is kept, anything between cents rounds down. */
export function upperBoundCents(max: number): number {
  if (hasAtMostTwoDecimals(max)) return clampCents(centsOf(max));
  return clampCents(Math.floor(max * 100));
}

/**
 * The width of a price bucket, in cents ($5). A price-range `total` sums the counters of the buckets
 * lying wholly inside the range and counts the rows of the (at most two) partial buckets at its edges:
 * a wider bucket means fewer counters to sum and more rows to count. Measured on a million products
 * (50 categories, $1–$999.99) over random cent-precision ranges, widths of 250–4000 cents: SQLite does
 * best at 250 (0.10 ms, 0.13 at 500), PostgreSQL at 500–1000 (a heap visit per counter), so 500 is the
 * compromise (bench/PRODUCTS.md).
 *
 * Migration 0003-product-price-counts built `product_price_counts` with this width and keeps its own
 * copy of the number (a migration never changes once applied): changing it here needs a new migration
 * that rebuilds the counters.
 */
export const PRICE_BUCKET_CENTS = 500;

/**
 * The products service's single update and delete (what a batch runs per row), and the update and
 * delete of a list of ids (a write by filter's: the single update's and delete's list of many).
 */
export interface ProductSingleWrites {
  updateProducts(actor: Principal | null, ids: readonly number[], raw: unknown): Promise<Product[]>;
  updateProduct(
    actor: Principal | null,
    id: number,
    raw: unknown,
    precondition?: Precondition<Product>,
  ): Promise<Product>;
  deleteProduct(actor: Principal | null, id: number, precondition?: Precondition<Product>): Promise<boolean>;
  deleteProducts(actor: Principal | null, ids: readonly number[]): Promise<boolean[]>;
}
