import { isAdmin, type Principal } from '../../core/access/principal.ts';
import type { ListSettings } from '../../core/querying/list-grammar.ts';
import { parseListQuery, type ListQuery } from '../../core/querying/list-query-parse.ts';
import { readSearchParameters } from '../../core/search/search-results.ts';
import type { ProductSort } from './product.ts';
import {
  PRODUCT_QUERY_V1,
  seedConditionsOf,
  sortKeysOf,
  type ProductQuery,
  type SeedProductFilters,
} from './products.query.ts';
import { PRODUCT_SEARCH } from './products.search.ts';

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
