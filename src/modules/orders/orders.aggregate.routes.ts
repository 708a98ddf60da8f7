import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AGGREGATE_REQUEST_WEIGHT } from '../../core/querying/aggregate-grammar.ts';
import { AggregateOrdersQuery, OrdersAggregate } from './orders.schemas.ts';
import type { OrdersService } from './orders.service.ts';

/**
 * `GET /orders/aggregate` (DECISIONS §14): a thin handler over `orders.aggregate`, which GraphQL's
 * `ordersAggregate` can call the same way. Charged as AGGREGATE_REQUEST_WEIGHT plain reads.
 */
export function registerOrdersAggregateRoute(app: FastifyInstance, orders: OrdersService): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/orders/aggregate',
    {
      config: { access: 'user', rateLimitWeight: AGGREGATE_REQUEST_WEIGHT },
      schema: {
        tags: ['orders'],
        summary: "Aggregate orders (the caller's; all for an admin): measures per group",
        querystring: AggregateOrdersQuery,
        response: { 200: OrdersAggregate },
      },
    },
    async (request) => orders.aggregate(request.principal, request.query, request.query),
  );
}
