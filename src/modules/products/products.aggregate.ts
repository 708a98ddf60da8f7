import { defineAggregateGrammar } from '../../core/querying/aggregate-grammar.ts';
import { priceOf } from './money.ts';

/**
 * What `GET /api/products/aggregate` may measure and group by, and the list's facets (DECISIONS §14),
 * declared once (core/querying/aggregate-grammar.ts). v1 names the creation time `created_at`, v2
 * `createdAt` (DECISIONS §7), as the list grammar does (products.query.ts): one declaration per version.
 */
function productAggregates(createdKey: 'created_at' | 'createdAt') {
  return defineAggregateGrammar({
    resource: 'products',
    measures: { price: { column: 'price_cents', fromCents: priceOf }, stock: { column: 'stock' } },
    groups: { category: { column: 'category', type: 'text' } },
    timeFields: { [createdKey]: { column: 'created_at' } },
    facets: ['category'],
  });
}

export const PRODUCT_AGGREGATES_V1 = productAggregates('created_at');
export const PRODUCT_AGGREGATES_V2 = productAggregates('createdAt');
