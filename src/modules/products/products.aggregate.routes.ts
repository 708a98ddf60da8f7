import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiVersion } from '../../core/http/versioning.ts';
import { AGGREGATE_REQUEST_WEIGHT } from '../../core/querying/aggregate-grammar.ts';
import { AggregateProductsQuery, ProductsAggregate } from './products.aggregate.schemas.ts';
import type { ListProductsQuery } from './products.schemas.ts';
import type { ListProductsOptions, ProductsService } from './products.service.ts';

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
