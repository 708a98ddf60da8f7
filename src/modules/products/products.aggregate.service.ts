import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { parseAggregate, parseFacets, type AggregateRequest } from '../../core/querying/aggregate-parse.ts';
import type { AggregateResult, FacetValue } from '../../core/querying/aggregate-answer.ts';
import type { ListSettings } from '../../core/querying/list-grammar.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { aggregateProducts, countProductFacets } from './products.aggregate.repository.ts';
import { productListQuery, type ProductListRequest } from './products.list-request.ts';
import { PRODUCT_QUERY_V2 } from './products.query.ts';

const aggregatesOf = (request: ProductListRequest) =>
  request.grammar === PRODUCT_QUERY_V2 ? PRODUCT_AGGREGATES_V2 : PRODUCT_AGGREGATES_V1;

/**
 * Aggregates and facets of products (DECISIONS §14), part of the products service. Public, as the
 * catalogue is. Both read their conditions through the list's own reading (products.list-request.ts).
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
      return aggregateProducts(
        db,
        grammar,
        query.conditions,
        parseAggregate(grammar, request, { admin: false }),
        query.search,
      );
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
    // Exact up to COUNT_EXACT_LIMIT matching products, as a list's `count=estimated` (DECISIONS §12, §14).
    return countProductFacets(db, grammar, query.conditions, names, query.search, lists.countExactLimit);
  }
}
