import type { IdempotencyStore } from '../../core/idempotency/idempotency.store.ts';
import { aggregateKeyResolvers, aggregateRequestOf } from '../../core/querying/aggregate-graphql.ts';
import { asGraphqlArguments, graphqlListParameters } from '../../core/querying/list-graphql.ts';
import { nullIfNotFound, pageOf, toId, withId, type GraphQLContext } from '../../core/resolving/context.ts';
import { idempotent } from '../../core/resolving/idempotent.ts';
import { byIdLoader } from '../../core/resolving/loaders.ts';
import type {
  MutationCreateOrderArgs,
  MutationPayOrderArgs,
  QueryOrderArgs,
  QueryOrdersAggregateArgs,
  QueryOrdersArgs,
} from '../graphql-types.generated.ts';
import type { Product } from '../products/product.ts';
import type { ProductsService } from '../products/products.service.ts';
import type { User } from '../users/user.ts';
import type { UsersService } from '../users/users.service.ts';
import { centsToAmount, type Order, type OrderItem } from './order.ts';
import type { OrderAction } from './order-state-machine.ts';
import { ORDER_AGGREGATES } from './orders.aggregate.ts';
import { ORDER_QUERY } from './orders.query.ts';
import type { OrdersService } from './orders.service.ts';

/** REST's order body of the mutation's input: ids as numbers, an optional field given as null left out. */
function orderBodyOf({ input }: MutationCreateOrderArgs) {
  return {
    items: input.items.map((item) => ({ productId: toId(item.productId) || item.productId, quantity: item.quantity })),
    ...(input.currency === null || input.currency === undefined ? {} : { currency: input.currency }),
    ...(input.customerId === null || input.customerId === undefined
      ? {}
      : { customerId: toId(input.customerId) || input.customerId }),
  };
}

/** GraphQL adapters over the orders service: the same rules, permissions, events and idempotency as REST. */
export function ordersResolvers(services: {
  orders: OrdersService;
  users: UsersService;
  products: ProductsService;
  idempotency: IdempotencyStore;
}) {
  const { orders, users, products, idempotency } = services;
  /** A state-machine action as a mutation (`payOrder`): the service's transition under the key. */
  const transition =
    (action: OrderAction) =>
    (_: unknown, args: MutationPayOrderArgs, ctx: GraphQLContext): Promise<Order> =>
      idempotent(
        idempotency,
        ctx,
        { mutation: `${action}Order`, key: args.idempotencyKey, fingerprint: { id: args.id } },
        () => withId(args.id, 'Order', (id) => orders[action](ctx.principal, id)),
      );
  return {
    resolvers: {
      Query: {
        // Someone else's order reads as missing, as in REST (404 there, null here).
        order: (_: unknown, args: QueryOrderArgs, ctx: GraphQLContext) =>
          nullIfNotFound(() => orders.getOrder(ctx.principal, toId(args.id))),
        orders: (_: unknown, args: QueryOrdersArgs, ctx: GraphQLContext) => {
          const { parameters, sort } = graphqlListParameters(ORDER_QUERY, args.filter, args.orderBy);
          return orders.listOrders(ctx.principal, { ...parameters, sort, count: 'none', ...pageOf(args) }).then(
            (page) => page.items,
            (error: unknown) => {
              throw asGraphqlArguments(error);
            },
          );
        },
        // REST's GET /orders/aggregate through the same call: a customer's own orders, customerId groups for admins.
        ordersAggregate: (_: unknown, args: QueryOrdersAggregateArgs, ctx: GraphQLContext) =>
          orders
            .aggregate(
              ctx.principal,
              aggregateRequestOf(args),
              graphqlListParameters(ORDER_QUERY, args.filter, undefined).parameters,
            )
            .catch((error: unknown) => {
              throw asGraphqlArguments(error, { sort: 'sort' });
            }),
      },
      OrderGroupKey: aggregateKeyResolvers(ORDER_AGGREGATES),
      Order: {
        amount: (order: Order) => centsToAmount(order.amountCents),
      },
      OrderItem: {
        unitPrice: (item: OrderItem) => centsToAmount(item.unitPriceCents),
      },
      Mutation: {
        createOrder: (_: unknown, args: MutationCreateOrderArgs, ctx: GraphQLContext) => {
          const body = orderBodyOf(args);
          return idempotent(
            idempotency,
            ctx,
            { mutation: 'createOrder', key: args.idempotencyKey, fingerprint: body },
            () => orders.createOrder(ctx.principal, body),
          );
        },
        payOrder: transition('pay'),
        cancelOrder: transition('cancel'),
        refundOrder: transition('refund'),
      },
    },
    batched: {
      Order: {
        customer: byIdLoader<Order, User>(
          (order) => order.customerId,
          (ids, fields, ctx) => users.findUsersByIds(ctx.principal, ids, fields),
        ),
      },
      OrderItem: {
        product: byIdLoader<OrderItem, Product>(
          (item) => item.productId,
          (ids) => products.findProductsByIds(ids),
        ),
      },
    },
  };
}
