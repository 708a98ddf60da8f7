import type { Generated, Selectable, Updateable } from 'kysely';
import type { SqlBool, Timestamp } from '../../core/db/tables.ts';
import type { SearchSource } from '../../core/search/search-source.ts';

/**
 * The products table, its two count tables, its full-text search, and their row types, in the
 * database's own snake_case (only repositories see rows). They join the database type `Tables` of
 * core/db/tables.ts below.
 */
export interface ProductsTable {
  id: Generated<number>;
  name: string;
  category: string;
  /** Money is stored exactly, as integer cents. */
  price_cents: number;
  stock: number;
  image: string | null;
  description: string | null;
  /** The natural key of upserts (DECISIONS §18): unique when present (migration 0021-products-sku). */
  sku: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Products per (category, in stock), kept exact by triggers (migration 0002-products-list). */
export interface ProductCountsTable {
  category: string;
  in_stock: SqlBool;
  n: number;
}

/** Products per (category, in stock, price bucket), kept exact by triggers (migration 0003-product-price-counts). */
export interface ProductPriceCountsTable {
  category: string;
  in_stock: SqlBool;
  /** `floor(price_cents / PRICE_BUCKET_CENTS)` */
  bucket: number;
  n: number;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    products: ProductsTable;
    product_counts: ProductCountsTable;
    product_price_counts: ProductPriceCountsTable;
  }
}

export type ProductRow = Selectable<ProductsTable>;
export type ProductRowUpdate = Updateable<ProductsTable>;

/**
 * The counter tables behind exact list totals (migrations 0002 and 0003), each with its primary key:
 * the seed clusters them after a bulk load (PostgreSQL). Migration 0004 keeps its own copy.
 */
export const PRODUCT_COUNTER_TABLES = [
  { table: 'product_counts', key: 'product_counts_pk' },
  { table: 'product_price_counts', key: 'product_price_counts_pk' },
] as const;

/**
 * The products' full-text search (DECISIONS §14): name (weight A), category (B) and description (C).
 * PostgreSQL: `product_search` (GIN), words in `product_search_words`; SQLite: `products_fts`,
 * its vocabulary `products_fts_vocab`. Built by migration 0016 (products.migrations.ts).
 */
export const PRODUCT_SEARCH: SearchSource = {
  table: 'products',
  documentTable: 'product_search',
  ftsTable: 'products_fts',
  wordsTable: { postgres: 'product_search_words', sqlite: 'products_fts_vocab' },
  fields: {
    name: { column: 'name', weight: 'A' },
    category: { column: 'category', weight: 'B' },
    description: { column: 'description', weight: 'C' },
  },
  example: 'coffee or knife -skillet',
};
