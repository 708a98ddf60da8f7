import { Type, type Static, type TSchema } from 'typebox';
import { IdField, Link, Named, Nullable, PageQuery } from '../../core/http/schemas.ts';
import { embeddedProperty, embedOne, includeParameter, includePaths } from '../../core/querying/embedding-schema.ts';
import { queriedPageOf } from '../../core/querying/list-page.ts';
import { CustomerView } from '../customers/customers.representation.ts';
import { ProductView } from '../products/products.representation.ts';
import {
  aggregateAnswerSchema,
  aggregateParameters,
  facetsParameter,
  withFacets,
} from '../../core/querying/aggregate-schema.ts';
import { filterParameters, listQueryParameters } from '../../core/querying/list-query-schema.ts';
import { ORDER_STATUSES } from './order.ts';
import { ORDER_QUERY } from './orders.query.ts';
import { ORDER_AGGREGATES } from './orders.aggregate.ts';

/** Rules of an order request, declared once: REST validates with them and so does the service. */
export const MAX_ORDER_LINES = 100;
export const MAX_LINE_QUANTITY = 10_000;

/** What an order embeds (`include`): its customer, and each line's product (in the line, `items.product`). */
const ORDER_EMBEDS = { customer: embedOne(CustomerView) };
const OrderInclude = includeParameter([...includePaths(ORDER_EMBEDS), 'items.product']);
export const OrderReadQuery = Type.Object(OrderInclude);

export const OrderStatusSchema = Type.Enum([...ORDER_STATUSES]);

export const OrderLineInput = Type.Object(
  {
    productId: IdField(),
    quantity: Type.Integer({ minimum: 1, maximum: MAX_LINE_QUANTITY }),
  },
  { additionalProperties: false },
);

const createOrderInputOf = (currency: TSchema) =>
  Type.Object(
    {
      items: Type.Array(OrderLineInput, { minItems: 1, maxItems: MAX_ORDER_LINES }),
      currency: Type.Optional(currency),
      customerId: Type.Optional(IdField({ description: 'Admins only: place the order for this user' })),
    },
    {
      additionalProperties: false,
      description: 'Each product at most once per order; the amount is computed from current prices',
    },
  );

/** The service's check of a new order (GraphQL's and REST's): any text as currency, which the service compares. */
export const CreateOrderInput = createOrderInputOf(
  Type.String({ description: 'Must be the store currency when given' }),
);

/**
 * REST's body of `POST /orders` in a service whose store currency is `currency` (STORE_CURRENCY): the
 * one value the service accepts, so the documents say it (an order in another currency is a 422).
 */
export const createOrderBodyIn = (currency: string) =>
  createOrderInputOf(
    // Typed text as well as an enum, so the storable-text rule of every string applies to it too.
    Type.Unsafe<string>({
      type: 'string',
      enum: [currency],
      description: 'The store currency (STORE_CURRENCY), when given',
    }),
  );
export type CreateOrderInput = Static<typeof CreateOrderInput>;

export const ListOrdersQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(OrderStatusSchema),
  customerId: Type.Optional(IdField({ description: 'Admins: any customer; others: only themselves' })),
  ...OrderInclude,
  ...listQueryParameters(ORDER_QUERY),
  ...facetsParameter(ORDER_AGGREGATES),
});
export type ListOrdersQuery = Static<typeof ListOrdersQuery>;

/** `GET /orders/aggregate`: the list's filters (its seed parameters too), then the aggregate's own parameters. */
export const AggregateOrdersQuery = Type.Object({
  status: Type.Optional(OrderStatusSchema),
  customerId: Type.Optional(IdField({ description: 'Admins: any customer; others: only themselves' })),
  ...filterParameters(ORDER_QUERY),
  ...aggregateParameters(ORDER_AGGREGATES),
});
export type AggregateOrdersQuery = Static<typeof AggregateOrdersQuery>;

export const OrdersAggregate = aggregateAnswerSchema([ORDER_AGGREGATES], 'OrdersAggregate');

const Money = Type.Number({ description: 'Exact to the cent: at most two decimals' });
const Timestamp = Type.String({ format: 'date-time' });

export const OrderItemView = Named(
  'OrderItem',
  Type.Object({
    productId: Type.Integer(),
    name: Type.String(),
    quantity: Type.Integer(),
    unitPrice: Money,
    ...embeddedProperty({ product: embedOne(ProductView) }),
  }),
);

/** Which links appear depends on the status; each is present or absent, never null. */
export const OrderLinks = Named(
  'OrderLinks',
  Type.Object({
    self: Link,
    pay: Type.Optional(Link),
    cancel: Type.Optional(Link),
    refund: Type.Optional(Link),
    receipt: Type.Optional(Link),
    customer: Type.Optional(Link),
  }),
);

export const OrderView = Named(
  'Order',
  Type.Object({
    id: Type.Integer(),
    customerId: Type.Integer(),
    status: OrderStatusSchema,
    items: Type.Array(OrderItemView),
    amount: Money,
    currency: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    paidAt: Nullable(Timestamp),
    cancelledAt: Nullable(Timestamp),
    refundedAt: Nullable(Timestamp),
    _links: OrderLinks,
    ...embeddedProperty(ORDER_EMBEDS),
  }),
);

export const OrderList = withFacets(queriedPageOf(OrderView, 'OrderPage'), ORDER_AGGREGATES);

export const ReceiptView = Named(
  'Receipt',
  Type.Object({
    receiptNumber: Type.String(),
    orderId: Type.Integer(),
    customerId: Type.Integer(),
    items: Type.Array(OrderItemView),
    amount: Money,
    currency: Type.String(),
    paidAt: Timestamp,
    refundedAt: Nullable(Timestamp),
    _links: Type.Object({ self: Link, order: Link }),
  }),
);
