import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdempotencyHeaders, sendIdempotent } from '../../core/idempotency/idempotency.http.ts';
import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import { EmptyBody, Id } from '../../core/http/schemas.ts';
import { queriedPaginationOf } from '../../core/querying/list-page.ts';
import type { Embedding } from '../../core/querying/embedding.ts';
import { listWeightWithFacets } from '../../core/querying/aggregate-grammar.ts';

const facetsOf = (query: unknown) => (query as { facets?: unknown } | undefined)?.facets;
import { ORDER_ACTIONS } from './order-state-machine.ts';
import { registerOrdersAggregateRoute } from './orders.aggregate.routes.ts';
import { toOrderView, toReceiptView } from './orders.presenter.ts';
import {
  createOrderBodyIn,
  ListOrdersQuery,
  OrderList,
  OrderReadQuery,
  OrderView,
  ReceiptView,
} from './orders.schemas.ts';
import type { OrdersService } from './orders.service.ts';

const OrderParams = Type.Object({ orderId: Id });
const tags = ['orders'];

const ACTION_SUMMARIES = {
  pay: 'Pay a pending order',
  cancel: 'Cancel a pending order (its stock is returned)',
  refund: 'Refund a paid order (admin; its stock is returned)',
} as const;

/** REST adapter for orders: thin handlers over the orders service; writes honour `Idempotency-Key`. */
export const ordersRoutes: FastifyPluginAsyncTypebox<{
  orders: OrdersService;
  idempotency: IdempotencyStore;
  embedding: Embedding;
}> = async (app, { orders, idempotency, embedding }) => {
  app.post(
    '/orders',
    {
      config: {
        access: 'user',
        openapi: {
          errors: {
            409: {
              description:
                'Not enough stock (`OUT_OF_STOCK`, details per item), or the `Idempotency-Key` is still in use (`CONFLICT`)',
              code: 'OUT_OF_STOCK',
              message: 'Not enough stock',
            },
          },
        },
      },
      schema: {
        tags,
        summary: 'Place an order',
        headers: IdempotencyHeaders,
        body: createOrderBodyIn(orders.storeCurrency),
        response: { 201: OrderView },
      },
    },
    async (request, reply) =>
      sendIdempotent(request, reply, idempotency, async () => {
        const view = toOrderView(await orders.createOrder(request.principal, request.body), request.apiPrefix);
        return { status: 201, headers: { location: view._links.self.href }, body: view };
      }),
  );

  app.get(
    '/orders',
    {
      config: { access: 'user', rateLimitWeight: (request) => listWeightWithFacets(facetsOf(request.query)) },
      schema: {
        tags,
        summary: "List orders (the caller's; all for an admin), newest first",
        querystring: ListOrdersQuery,
        response: { 200: OrderList },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('order', request);
      const [page, facets] = await Promise.all([
        orders.listOrders(request.principal, request.query),
        orders.facets(request.principal, request.query),
      ]);
      const data = page.items.map((order) => toOrderView(order, request.apiPrefix));
      return { data: await embed.list(data), pagination: queriedPaginationOf(page), ...(facets ? { facets } : {}) };
    },
  );

  app.get(
    '/orders/:orderId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Read an order and the links its status allows',
        params: OrderParams,
        querystring: OrderReadQuery,
        response: { 200: OrderView },
      },
    },
    async (request) => {
      const embed = embedding.forRequest('order', request);
      return embed.one(
        toOrderView(await orders.getOrder(request.principal, request.params.orderId), request.apiPrefix),
      );
    },
  );

  registerOrdersAggregateRoute(app, orders);

  for (const action of ORDER_ACTIONS) {
    app.post(
      `/orders/:orderId/${action}`,
      {
        config: {
          access: 'user',
          openapi: {
            errors: {
              409: {
                description:
                  'The order is not in a state that allows this (`INVALID_STATE`, naming it), or the `Idempotency-Key` is still in use (`CONFLICT`)',
                code: 'INVALID_STATE',
                message: 'Order 7 is paid',
              },
            },
          },
        },
        schema: {
          tags,
          summary: ACTION_SUMMARIES[action],
          params: OrderParams,
          headers: IdempotencyHeaders,
          body: EmptyBody,
          response: { 200: OrderView },
        },
      },
      async (request, reply) =>
        sendIdempotent(request, reply, idempotency, async () => ({
          status: 200,
          headers: {},
          body: toOrderView(await orders[action](request.principal, request.params.orderId), request.apiPrefix),
        })),
    );
  }

  app.get(
    '/orders/:orderId/receipt',
    {
      config: {
        access: 'user',
        openapi: {
          errors: {
            409: {
              description: 'The order is neither paid nor refunded (`INVALID_STATE`)',
              code: 'INVALID_STATE',
              message: 'Order 7 is pending',
            },
          },
        },
      },
      schema: {
        tags,
        summary: 'Receipt of a paid or refunded order',
        params: OrderParams,
        response: { 200: ReceiptView },
      },
    },
    async (request) =>
      toReceiptView(await orders.getReceipt(request.principal, request.params.orderId), request.apiPrefix),
  );
};
