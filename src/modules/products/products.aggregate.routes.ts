import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AGGREGATE_REQUEST_WEIGHT } from '../../core/querying/aggregate-grammar.ts';
import { Type, type Static } from 'typebox';
import { Versioned, type ApiVersion } from '../../core/http/versioning.ts';
import { aggregateAnswerSchema, aggregateParameters } from '../../core/querying/aggregate-schema.ts';
import { PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2 } from './products.aggregate.ts';
import { PRODUCT_QUERY_V1, PRODUCT_QUERY_V2 } from './products.list.ts';
import { listProductsQueryOf, type ListProductsQuery } from './products.schemas.ts';
import type { ListProductsOptions, ProductsService } from './products.service.ts';

/** The list's parameters that are not filters: an aggregate has its own `sort` and `limit`, no page and no highlights (its `q` narrows it). */
const NOT_FILTERS = ['page', 'limit', 'offset', 'sort', 'fields', 'count', 'cursor', 'facets', 'highlight'] as const;

/** `GET /products/aggregate`: the list's filters in a version (the seed's too), then the aggregate's parameters. */
const aggregateQueryOf = (version: 1 | 2) =>
  Type.Object({
    ...Type.Omit(listProductsQueryOf(version === 1 ? PRODUCT_QUERY_V1 : PRODUCT_QUERY_V2, '', []), NOT_FILTERS)
      .properties,
    ...aggregateParameters(version === 1 ? PRODUCT_AGGREGATES_V1 : PRODUCT_AGGREGATES_V2),
  });

export const AggregateProductsQuery = Versioned(aggregateQueryOf(1), aggregateQueryOf(2));
export type AggregateProductsQuery = Static<typeof AggregateProductsQuery>;

export const ProductsAggregate = aggregateAnswerSchema(
  [PRODUCT_AGGREGATES_V1, PRODUCT_AGGREGATES_V2],
  'ProductsAggregate',
);

/** How the list's route reads its query into the service's options (the seed's filters and the version's grammar). */
type OptionsOf = (query: ListProductsQuery, version: ApiVersion) => ListProductsOptions;

/**
 * `GET /products/aggregate` (DECISIONS §14): public, as the catalogue is; a thin handler over
 * `products.aggregate`, which GraphQL's `productsAggregate` can call the same way. Its filters are read
 * as the list reads them (`optionsOf`). Charged as AGGREGATE_REQUEST_WEIGHT plain reads.
 */
export function registerProductsAggregateRoute(
  app: FastifyInstance,
  products: ProductsService,
  optionsOf: OptionsOf,
  publicRead: { onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown> },
): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/products/aggregate',
    {
      config: { access: 'public', cacheControl: 'public, max-age=60', rateLimitWeight: AGGREGATE_REQUEST_WEIGHT },
      onSend: publicRead.onSend,
      schema: {
        tags: ['products'],
        summary: 'Aggregate products: measures per group',
        querystring: AggregateProductsQuery,
        response: { 200: ProductsAggregate },
      },
    },
    async (request) => {
      const filters = optionsOf(request.query as ListProductsQuery, request.apiVersion);
      return products.aggregate(request.principal, request.query, filters);
    },
  );
}
