import type { SearchSource } from '../../core/search/search-source.ts';

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
