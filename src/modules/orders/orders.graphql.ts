import { graphqlAggregateArguments, graphqlAggregateTypeDefs } from '../../core/querying/aggregate-graphql.ts';
import { graphqlListTypeDefs } from '../../core/querying/list-graphql.ts';
import { ORDER_AGGREGATES } from './orders.aggregate.ts';
import { ORDER_QUERY } from './orders.query.ts';

/** The orders slice of the GraphQL schema (composed in graphql/schema.ts); resolvers in orders.resolvers.ts. */
export const ordersTypeDefs = /* GraphQL */ `
  ${graphqlListTypeDefs(ORDER_QUERY, 'Order')}

  ${graphqlAggregateTypeDefs(ORDER_AGGREGATES, 'Order', 'Orders')}

  """
  An order, as v2's REST object (without _links). Its customer or an admin reads it.
  """
  type Order {
    id: ID!
    customerId: ID!
    """
    The user who placed it (their e-mail as any user read shows it).
    """
    customer: User!
    """
    One of pending, paid, cancelled, refunded.
    """
    status: String!
    """
    The lines, each with the name and unit price at the time of purchase (at most 100).
    """
    items: [OrderItem!]!
    """
    The sum of the lines, in currency units, at most two decimals.
    """
    amount: Float!
    currency: String!
    """
    ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:00:00.000Z.
    """
    createdAt: String!
    updatedAt: String!
    paidAt: String
    cancelledAt: String
    refundedAt: String
  }

  type OrderItem {
    productId: ID!
    product: Product!
    name: String!
    quantity: Int!
    """
    In currency units, as it was when the order was placed.
    """
    unitPrice: Float!
  }

  input OrderItemInput {
    productId: ID!
    quantity: Int!
  }

  """
  REST's POST /orders body: each product at most once; the amount is computed from current prices.
  """
  input CreateOrderInput {
    items: [OrderItemInput!]!
    """
    Must be the store currency when given.
    """
    currency: String
    """
    Admins only: place the order for this user.
    """
    customerId: ID
  }

  extend type Query {
    """
    Null when no order has this id, or when it is another customer's.
    """
    order(id: ID!): Order
    """
    The caller's orders (all for an admin), newest first (limit 1-100), or filtered and ordered as the REST list (docs/QUERYING.md).
    """
    orders(limit: Int = 20, offset: Int = 0, filter: OrderFilter, orderBy: [OrderOrder!]): [Order!]!
    """
    Measures per group of the orders \`filter\` matches, the caller's own (all for an admin): REST's GET /orders/aggregate (docs/QUERYING.md).
    """
    ordersAggregate(
      filter: OrderFilter
      ${graphqlAggregateArguments(ORDER_AGGREGATES)}
    ): OrdersAggregate!
  }

  extend type Mutation {
    """
    A pending order for the caller; OUT_OF_STOCK (details per item) when stock is short, and nothing changes.
    \`idempotencyKey\`: as REST's Idempotency-Key (the same key and arguments within 24 h answer the first result).
    """
    createOrder(input: CreateOrderInput!, idempotencyKey: String): Order!
    """
    pending to paid; else INVALID_STATE.
    """
    payOrder(id: ID!, idempotencyKey: String): Order!
    """
    pending to cancelled, the stock returned; else INVALID_STATE.
    """
    cancelOrder(id: ID!, idempotencyKey: String): Order!
    """
    Admin only: paid to refunded, the stock returned; else INVALID_STATE.
    """
    refundOrder(id: ID!, idempotencyKey: String): Order!
  }
`;
