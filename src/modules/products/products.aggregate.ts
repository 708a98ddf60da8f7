import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import type { AggregateResult, FacetValue } from '../../core/querying/aggregate-answer.ts';
import {
  aggregateColumnsOf,
  defineAggregateGrammar,
  type AggregateGrammar,
} from '../../core/querying/aggregate-grammar.ts';
import { parseAggregate, parseFacets, type AggregateRequest } from '../../core/querying/aggregate-parse.ts';
import { createAggregateStatements } from '../../core/querying/aggregate-sql.ts';
import type { Condition, ListSettings } from '../../core/querying/list-grammar.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { listColumnsOf } from '../../core/querying/list-sql.ts';
import { priceOf } from './product.ts';
import {
  productFilterOf,
  productListQuery,
  PRODUCT_QUERY_V1,
  PRODUCT_QUERY_V2,
  type ProductListRequest,
} from './products.list.ts';
import { countedCategoryFacet } from './products.list.statements.ts';
import { PRODUCT_SEARCH } from './products.table.ts';

/**
 * Aggregates and facets of products (DECISIONS §14): what `GET /api/products/aggregate` may measure and
 * group by and the list's facets, declared once per version (core/querying/aggregate-grammar.ts; v1
 * names the creation time `created_at`, v2 `createdAt`, DECISIONS §7, as the list grammar does), and
 * their part of the products service, over core's aggregate statements.
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

/**
 * The category facet of the whole catalogue, or of the products in stock, from the counters
 * (`product_counts`, exact by triggers): a row per category instead of every product. Undefined for
 * any other condition (the rows are read then).
 */
function countedFacet(db: Db, name: string, others: readonly Condition[]): Promise<FacetValue[]> | undefined {
  const filter = name === 'category' ? productFilterOf(others) : undefined;
  if (!filter || Object.entries(filter).some(([key, value]) => key !== 'inStock' && value !== undefined)) {
    return undefined;
  }
  return countedCategoryFacet(db, filter.inStock === true);
}

/** Core's statements over the products table and the list's columns, the counters behind the category facet. */
const columns = [
  ...listColumnsOf([PRODUCT_QUERY_V1, PRODUCT_QUERY_V2], 'id'),
  ...aggregateColumnsOf(PRODUCT_AGGREGATES_V1),
  ...aggregateColumnsOf(PRODUCT_AGGREGATES_V2),
];
const statements = new Map<AggregateGrammar, ReturnType<typeof createAggregateStatements>>(
  [PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2].map((grammar) => [
    grammar,
    createAggregateStatements('products', grammar, columns, { searchSource: PRODUCT_SEARCH, countedFacet }),
  ]),
);

const aggregatesOf = (request: ProductListRequest) =>
  request.grammar === PRODUCT_QUERY_V2 ? PRODUCT_AGGREGATES_V2 : PRODUCT_AGGREGATES_V1;

/**
 * Aggregates and facets of products, part of the products service. Public, as the catalogue is. Both
 * read their conditions through the list's own reading (products.list.ts).
 */
export function createProductAggregates(db: Db, lists: ListSettings) {
  return {
    /**
     * `GET /products/aggregate`: the groups of the products the list's filters (`filters`, as the list's
     * options) match. Takes the aggregate's parameters as REST or GraphQL hand them over.
     */
    async aggregate(
      actor: Principal | null,
      request: AggregateRequest,
      filters: ProductListRequest = {},
    ): Promise<AggregateResult> {
      // The aggregate's `sort` orders groups; the list's sort, count and cursor mean nothing here.
      const query = productListQuery(actor, { ...filters, sort: [], count: undefined, cursor: undefined }, lists);
      const grammar = aggregatesOf(filters);
      const parsed = parseAggregate(grammar, request, { admin: false });
      return statements.get(grammar)!.aggregate(db, query.conditions, parsed, query.search);
    },

    /** `facets=category` of the products list (estimated over a large match set): undefined when none is asked for. */
    async facets(
      actor: Principal | null,
      options: ProductListRequest,
    ): Promise<{ facets: Record<string, FacetValue[]>; estimated: boolean } | undefined> {
      return facetsOfQuery(options, () => productListQuery(actor, options, lists));
    },

    /** The facets of a list request already read (readProductListRequest): no second parse of `q` or the grammar. */
    facetsOfQuery,
  };

  async function facetsOfQuery(
    options: ProductListRequest,
    queryOf: () => ListQuery,
  ): Promise<{ facets: Record<string, FacetValue[]>; estimated: boolean } | undefined> {
    const grammar = aggregatesOf(options);
    const names = parseFacets(grammar, options.parameters?.facets as string | readonly string[] | undefined);
    if (names.length === 0) return undefined;
    const query = queryOf();
    // Exact up to COUNT_EXACT_LIMIT matching products, as a list's `count=estimated` (DECISIONS §12, §14);
    // over more, from a sample of them (aggregate-sql.ts `boundedFacets`).
    return statements.get(grammar)!.boundedFacets(db, query.conditions, names, query.search, lists.countExactLimit);
  }
}
